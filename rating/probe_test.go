package rating

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/results"
)

// Without a start, a rating by rate first probes the capacity: the pool
// back to back measures about the simulated store's 2000 ops/s, and the
// search starts at half of it, instead of growing from 100 ops/s. The
// answer is the same; the experiments are fewer. (Experiments of 2 s and
// a final run of 3 s, as in TestRateSimKnownAnswer: with 1 s and 2 s, 2,048
// ops/s passed on a store of 2,000, its queue too short to tell.)
func TestProbeStartsTheSearchAtHalfTheCapacity(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	rate := func(noProbe bool) *Rating {
		r, err := Rate(context.Background(), Options{
			Base: experiment.Options{Driver: "sim", Store: store,
				Props: []string{"recordcount=1000", "sim.capacity=2000"}},
			SLA: mustSLA(t, "p95<50ms"), Step: 2 * time.Second, SLADuration: 3 * time.Second,
			NoProbe: noProbe,
		}, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range r.Steps {
			t.Logf("  %s %.0f achieved %.0f pass=%v early=%v %s", s.Kind, s.Target, s.Achieved, s.Pass, s.StoppedEarly, s.Reason)
		}
		t.Logf("rating %d: %.0f ops/s, %d experiments", r.ID, r.Answer, r.Time.Experiments)
		if !r.Found || !r.Confirmed || r.Answer < 0.85*2000 || r.Answer > 2000 {
			t.Errorf("rating %d: answer %.0f ops/s (confirmed %v), want 1700..2000", r.ID, r.Answer, r.Confirmed)
		}
		return r
	}
	probed := rate(false)
	p := probed.Steps[0]
	if p.Kind != KindProbe || p.Target != DefaultPool || p.RunID == 0 || p.Pass {
		t.Fatalf("first step %+v: want a stored capacity probe of the %d-client pool, without a verdict", p, DefaultPool)
	}
	if p.Achieved < 0.8*2000 || p.Achieved > 1.1*2000 {
		t.Errorf("probe achieved %.0f ops/s, want about the capacity, 2000", p.Achieved)
	}
	if next := probed.Steps[1]; next.Kind != "search" || next.Target != (&searcher{by: ByRate}).round(p.Achieved/2) {
		t.Errorf("the search started at %s %.0f, want half the probe's %.0f", next.Kind, next.Target, p.Achieved)
	}
	if probed.Spread != nil && probed.Spread.Low == DefaultPool {
		t.Errorf("spread %+v counts the probe as a failure", probed.Spread)
	}
	grown := rate(true)
	if grown.Steps[0].Kind != "search" || grown.Steps[0].Target != DefaultStartRate {
		t.Errorf("with NoProbe the first step is %s %.0f, want a search at %g", grown.Steps[0].Kind, grown.Steps[0].Target, DefaultStartRate)
	}
	if probed.Time.Experiments >= grown.Time.Experiments {
		t.Errorf("with the probe %d experiments, from %g ops/s %d: want fewer", probed.Time.Experiments, DefaultStartRate, grown.Time.Experiments)
	}
	// Stored like any step: kind probe, the pool as its target.
	s, err := results.Open(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.GetRating(context.Background(), probed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st := got.Steps[0]; st.Kind != KindProbe || st.Target != DefaultPool || st.Achieved != p.Achieved {
		t.Errorf("stored first step %+v, want the probe", st)
	}
}

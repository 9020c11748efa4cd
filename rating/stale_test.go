package rating

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/results"
)

// An SLA with an unpredictable term makes every experiment stamp and check
// versions: the embedded store never returns a stale value, the counts are
// stored with each run, and the term is evaluated from them.
func TestUnpredictableTermOnPebble(t *testing.T) {
	t.Parallel() // real time, but a loose SLA: load does not decide it
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	r, err := Rate(context.Background(), paced(Options{
		Base: experiment.Options{Driver: "pebble", Store: store,
			Props: []string{"recordcount=500", "pebble.dir=" + filepath.Join(dir, "data")}},
		SLA: mustSLA(t, "p99<2s", "unpredictable<0.01%"), Reset: ResetKeep,
	}, 100), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := results.OpenExisting(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	checked := 0.0
	for _, s := range r.Steps {
		found := false
		for _, tm := range s.Terms {
			if tm.Term == "unpredictable<0.01%" {
				found = true
				if !tm.Pass || tm.Unit != "%" || tm.Measured != 0 {
					t.Errorf("step at %g: %+v, want a measured 0%% that passes", s.Target, tm)
				}
			}
		}
		if !found {
			t.Errorf("step at %g: no unpredictable term in %+v", s.Target, s.Terms)
		}
		ms, err := st.RunMetrics(context.Background(), s.RunID)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, m := range ms {
			got[m.Name] = m.Value
		}
		if got["reads_stamped"] < 10 || got["unpredictable_reads"] != 0 || got["wrong_reads"] != 0 {
			t.Errorf("run %d metrics %v, want reads and none stale or wrong", s.RunID, got)
		}
		checked += got["reads_checked"]
	}
	if checked < 10 {
		t.Errorf("%g reads checked against an acknowledged write over the rating, want at least 10", checked)
	}
}

func TestUnpredictableRefusesDataIntegrity(t *testing.T) {
	dir := t.TempDir()
	_, err := Rate(context.Background(), Options{
		Base: experiment.Options{Driver: "pebble", Store: filepath.Join(dir, "r.db"),
			Props: []string{"recordcount=500", "dataintegrity=true", "pebble.dir=" + filepath.Join(dir, "data")}},
		SLA: mustSLA(t, "unpredictable=0"), Step: time.Second, SLADuration: time.Second,
	}, Hooks{})
	if !experiment.IsInput(err) || !contains(err.Error(), "dataintegrity") {
		t.Errorf("error %v, want bad input naming dataintegrity", err)
	}
}

package rating

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/results"
)

// The wiring, in real time: the runner and the sim driver under a rating,
// every step a stored run tagged with the rating, the rating itself
// stored. Whether the answer is right is the virtual tests' business
// (virtual_test.go): here the SLA is loose and the range short, so that a
// loaded machine passes it too.
func TestRateSimWiring(t *testing.T) {
	t.Parallel() // real time, but a loose SLA: load does not decide it
	store := filepath.Join(t.TempDir(), "r.db")
	a, err := Rate(context.Background(), Options{
		Base: experiment.Options{Driver: "sim", Store: store,
			Props: []string{"recordcount=1000", "sim.capacity=2000"}},
		SLA: mustSLA(t, "p99<2s"), Step: time.Second, SLADuration: time.Second,
		// The loosest throughput term (half the target): a starved runner
		// fails it only far below, and bisects less when it does.
		Start: 100, Max: 200, Precision: 0.5, Votes: 1, Warmup: -1, MinTail: -1,
	}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range a.Steps {
		t.Logf("  %s %.0f achieved %.0f pass=%v early=%v %s", s.Kind, s.Target, s.Achieved, s.Pass, s.StoppedEarly, s.Reason)
	}
	if !a.Found || len(a.Steps) < 2 {
		t.Fatalf("rating %d: found %v in %d steps, want an answer", a.ID, a.Found, len(a.Steps))
	}
	for _, st := range a.Steps {
		if st.Achieved <= 0 || st.Ops <= 0 || st.Seconds <= 0 {
			t.Errorf("step at %.0f: achieved %.0f, %d ops in %.2f s: want what the runner measured", st.Target, st.Achieved, st.Ops, st.Seconds)
		}
	}
	s, err := results.Open(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.GetRating(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != results.StatusDone || got.Answer == nil || *got.Answer != a.Answer || len(got.Steps) != len(a.Steps) {
		t.Errorf("stored rating %+v, want done with answer %.0f and %d steps", got, a.Answer, len(a.Steps))
	}
	runs, err := s.ListRuns(context.Background(), results.Filter{Tag: "rating:" + itoa(a.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != len(a.Steps) {
		t.Errorf("%d runs tagged with rating %d, want one per step (%d)", len(runs), a.ID, len(a.Steps))
	}
	js, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	if m["throughput"] != a.Answer || m["sla"] != "p99<2s" || m["strategy"] != "reload" {
		t.Errorf("JSON %s: want throughput, sla and strategy", js)
	}
}

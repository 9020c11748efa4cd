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

// simRating rates the simulated store of capacity 2000 ops/s against
// p95<50ms.
func simRating(t *testing.T, store string, early bool) *Rating {
	t.Helper()
	r, err := Rate(context.Background(), Options{
		Base: experiment.Options{Driver: "sim", Store: store,
			Props: []string{"recordcount=1000", "sim.capacity=2000"}},
		SLA: mustSLA(t, "p95<50ms"), Step: 2 * time.Second, SLADuration: 3 * time.Second,
		Start: 1000, NoEarlyStop: !early,
	}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The known answer: capacity 2000 ops/s rates between 85 % and 100 % of it,
// twice within the precision, with every step a stored run tagged with the
// rating and the rating itself stored.
func TestRateSimKnownAnswer(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	a := simRating(t, store, true)
	b := simRating(t, store, true)
	for _, r := range []*Rating{a, b} {
		t.Logf("rating %d: %.0f ops/s confirmed=%v, %d experiments, time %+v", r.ID, r.Answer, r.Confirmed, len(r.Steps), r.Time)
		for _, s := range r.Steps {
			t.Logf("  %s %.0f achieved %.0f pass=%v early=%v %s", s.Kind, s.Target, s.Achieved, s.Pass, s.StoppedEarly, s.Reason)
		}
		if !r.Found || r.Answer < 0.85*2000 || r.Answer > 2000 {
			t.Errorf("rating %d: answer %.0f ops/s, want 1700..2000", r.ID, r.Answer)
		}
		if !r.Confirmed {
			t.Errorf("rating %d: the final run did not confirm", r.ID)
		}
	}
	if lo, hi := min(a.Answer, b.Answer), max(a.Answer, b.Answer); hi-lo > 0.05*hi {
		t.Errorf("two ratings %.0f and %.0f differ by more than 5%%", a.Answer, b.Answer)
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
	early := 0
	for _, st := range append(a.Steps, b.Steps...) {
		if st.StoppedEarly {
			early++
		}
	}
	if early == 0 || a.Time.EarlySavedS <= 0 && b.Time.EarlySavedS <= 0 {
		t.Errorf("no experiment stopped early (saved %.1fs, %.1fs): overloads should be certain early", a.Time.EarlySavedS, b.Time.EarlySavedS)
	}
	js, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["stable"].(bool); !ok {
		t.Errorf("JSON %s: want stable", js)
	}
	if m["throughput"] != a.Answer || m["sla"] != "p95<50ms" || m["strategy"] != "reload" {
		t.Errorf("JSON %s: want throughput, sla and strategy", js)
	}
	steps, _ := m["steps"].([]any)
	if len(steps) != len(a.Steps) {
		t.Fatalf("JSON has %d steps, want %d", len(steps), len(a.Steps))
	}
	step, _ := steps[0].(map[string]any)
	tm, _ := m["time"].(map[string]any)
	for _, k := range []string{"target", "achieved", "terms", "pass", "stopped_early", "run_id"} {
		if _, ok := step[k]; !ok {
			t.Errorf("JSON step lacks %s: %v", k, step)
		}
	}
	for _, k := range []string{"first_load_s", "resets_s", "experiments_s", "final_s", "total_s"} {
		if _, ok := tm[k]; !ok {
			t.Errorf("JSON time lacks %s: %v", k, tm)
		}
	}
}

// A store that holds up in the short search experiments but stalls later
// (150 ms, 2.5 s after it opens: a checkpoint that comes only after some
// seconds) fails the longer final run at the search's answer. The final
// runs then search down at full length and confirm the highest rate that
// held for the SLA's duration; three steps down by the precision found
// none here.
func TestFinalSearchesDownAtFullLength(t *testing.T) {
	r, err := Rate(context.Background(), Options{
		Base: experiment.Options{Driver: "sim", Store: filepath.Join(t.TempDir(), "r.db"),
			Props: []string{"recordcount=1000", "sim.capacity=2000", "sim.hiccups=2500ms+150ms"}},
		SLA: mustSLA(t, "p95<50ms"), Step: time.Second, SLADuration: 6 * time.Second,
		Start: 1000, Precision: 0.2, Warmup: -1, Steadiness: time.Second,
	}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	search, finals := 0.0, 0
	for _, s := range r.Steps {
		t.Logf("  %s %.0f (%.1f s) pass=%v %s", s.Kind, s.Target, s.Seconds, s.Pass, s.Reason)
		if s.Kind == "search" && s.Pass {
			search = max(search, s.Target)
		}
		if s.Kind == "final" {
			finals++
		}
	}
	t.Logf("answer %.0f confirmed=%v; the search's %.0f", r.Answer, r.Confirmed, search)
	if !r.Confirmed || r.Answer >= search || r.Answer < 500 || finals < 2 {
		t.Errorf("answer %.0f (confirmed %v) after %d final runs; want one confirmed at full length below the search's %.0f", r.Answer, r.Confirmed, finals, search)
	}
	// A final run failing below a search pass is the longer test failing,
	// not the store's capacity moving.
	if !r.Stable || r.Spread.wider(0.2) {
		t.Errorf("stable = %v with spread %+v; want stable", r.Stable, r.Spread)
	}
	// The machine's steadiness was measured first: 1 s is two 250 ms
	// windows of each kind of work, the first a warmup.
	if m := r.Machine; m == nil || m.Windows != 1 || !(m.Cache.Median > 0) {
		t.Errorf("machine steadiness %+v: want one window of each kind measured", r.Machine)
	}
	if last := r.Steps[len(r.Steps)-1]; last.Kind != "final" {
		t.Errorf("last step %s, want a final run", last.Kind)
	}
}

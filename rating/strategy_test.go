package rating

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/experiment"
)

// Every strategy rates the embedded store with its data kept in a
// directory: the first experiment loads, the later ones reset the data
// their way, and the time split counts each reset.
func TestStrategiesOnPebble(t *testing.T) {
	t.Parallel() // real time, but a loose SLA: load does not decide it
	for _, strategy := range Strategies {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r, err := Rate(context.Background(), paced(Options{
				Base: experiment.Options{Driver: "pebble", Store: filepath.Join(dir, "r.db"),
					Props: []string{"recordcount=2000", "dataintegrity=true", "pebble.dir=" + filepath.Join(dir, "data")}},
				SLA: mustSLA(t, "p99<2s"), Reset: strategy,
			}, 200), Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			// The answer itself is the virtual tests' business; here: how
			// the data was reset.
			if !r.Found {
				t.Errorf("no answer found")
			}
			for _, s := range r.Steps {
				t.Logf("%s %g achieved %.1f pass=%v %s reset %s %.3fs, %.2fs", s.Kind, s.Target, s.Achieved, s.Pass, s.Reason, s.Reset, s.ResetS, s.Seconds)
			}
			if len(r.Steps) < 3 {
				t.Fatalf("%d steps, want 1 and 2 clients and the final run at least", len(r.Steps))
			}
			if r.Steps[0].Reset != resetLoad {
				t.Errorf("first step reset %q, want the load", r.Steps[0].Reset)
			}
			for _, s := range r.Steps[1:] {
				if s.Reset != strategy {
					t.Errorf("step at %g: reset %q, want %q", s.Target, s.Reset, strategy)
				}
				if s.ResetS <= 0 {
					t.Errorf("step at %g: reset took %gs, want a measured time", s.Target, s.ResetS)
				}
			}
			if r.Time.ResetCount != len(r.Steps)-1 || r.Time.FirstLoadS <= 0 || r.Time.ExperimentsS <= 0 || r.Time.FinalS <= 0 {
				t.Errorf("time split %+v", r.Time)
			}
			// Pebble settles after the load and every reset, inside their time.
			sum := 0.0
			for _, s := range r.Steps {
				if s.SettleS <= 0 || s.Reset != resetLoad && s.SettleS > s.ResetS {
					t.Errorf("step at %g (%s): settled %gs of a reset of %gs, want a measured part of it", s.Target, s.Reset, s.SettleS, s.ResetS)
				}
				sum += s.SettleS
			}
			if math.Abs(r.Time.SettleS-sum) > 1e-9 || !strings.Contains(r.Rule, "settled") {
				t.Errorf("settle_s %g, steps sum to %g; rule %q", r.Time.SettleS, sum, r.Rule)
			}
		})
	}
}

// --settle=false: no step waits, the rule does not say it does.
func TestNoSettle(t *testing.T) {
	t.Parallel() // real time, but a loose SLA: load does not decide it
	dir := t.TempDir()
	r, err := Rate(context.Background(), paced(Options{
		Base: experiment.Options{Driver: "pebble", Store: filepath.Join(dir, "r.db"),
			Props: []string{"recordcount=1000", "pebble.dir=" + filepath.Join(dir, "data")}},
		SLA: mustSLA(t, "p99<2s"), Reset: ResetReload, NoSettle: true,
	}, 100), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Steps {
		if s.SettleS != 0 {
			t.Errorf("step at %g: settled %gs with NoSettle", s.Target, s.SettleS)
		}
	}
	if r.Time.SettleS != 0 || strings.Contains(r.Rule, "settled") {
		t.Errorf("settle_s %g, rule %q", r.Time.SettleS, r.Rule)
	}
}

// keepRating rates SQLite (whose primary key refuses a duplicate insert,
// where Pebble would overwrite) with --reset keep on a workload at 200
// ops/s (paced: three experiments).
func keepRating(t *testing.T, slaTerms string, props ...string) *Rating {
	t.Helper()
	dir := t.TempDir()
	r, err := Rate(context.Background(), paced(Options{
		Base: experiment.Options{Driver: "sqlite", Store: filepath.Join(dir, "r.db"), PropFiles: []string{"workloadd"},
			Props: append([]string{"recordcount=2000", "sqlite.path=" + filepath.Join(dir, "ycsb.db"),
				"sqlite.timeout=1m"}, props...)}, // beside a CPU burner a batch waited 10 s for the connection
		SLA: mustSLA(t, slaTerms), Reset: ResetKeep,
	}, 200), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Steps {
		t.Logf("%s %g pass=%v reset=%s fallback=%q %s", s.Kind, s.Target, s.Pass, s.Reset, s.Fallback, s.Reason)
	}
	return r
}

// Workload D inserts: keep carries the acknowledged insert sequence over,
// so no experiment inserts a key that exists nor reads one that does not.
func TestKeepCarriesTheInsertSequence(t *testing.T) {
	t.Parallel() // real time, but a loose SLA: load does not decide it
	// errors=0: a duplicate-key insert (rule 2) or a read of a missing key
	// (rule 1) is an error, so any break of the rules fails a step. 2,000
	// records: the inserts (5 % of 200 ops/s, about 10 an experiment) stay
	// well within the drift limit (rule 3, 10 %).
	r := keepRating(t, "p99<2s,errors=0")
	if len(r.Steps) < 3 {
		t.Fatalf("%d steps, want 2 search experiments and the final run", len(r.Steps))
	}
	for _, s := range r.Steps[1:] {
		if s.Reset != ResetKeep || s.Fallback != "" {
			t.Errorf("step at %g: reset %s (fallback %q), want keep", s.Target, s.Reset, s.Fallback)
		}
	}
	for _, s := range r.Steps {
		for _, tm := range s.Terms {
			if tm.Term == "errors=0" && !tm.Pass {
				t.Errorf("step at %g: %v errors with the key sequence carried over", s.Target, tm.Measured)
			}
		}
	}
}

// With deletes, keep cannot keep: each later experiment falls back to the
// snapshot taken after the load, and says so.
func TestKeepFallsBackAfterDeletes(t *testing.T) {
	t.Parallel() // real time, but a loose SLA: load does not decide it
	// (YCSB's own deletes make its reads miss within one experiment too:
	// no errors=0 here.)
	// Two search experiments and the final run: two fallbacks.
	r := keepRating(t, "p99<2s", "deleteproportion=0.05", "readproportion=0.9")
	if len(r.Steps) < 3 {
		t.Fatalf("%d steps", len(r.Steps))
	}
	for _, s := range r.Steps[1:] {
		if s.Reset != ResetSnapshot || !contains(s.Fallback, "deleted") {
			t.Errorf("step at %g: reset %s fallback %q, want a snapshot because of deletes", s.Target, s.Reset, s.Fallback)
		}
	}
}

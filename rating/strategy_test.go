package rating

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
)

// Every strategy rates the embedded store with its data kept in a
// directory: the first experiment loads, the later ones reset the data
// their way, and the time split counts each reset.
func TestStrategiesOnPebble(t *testing.T) {
	for _, strategy := range Strategies {
		t.Run(strategy, func(t *testing.T) {
			dir := t.TempDir()
			r, err := Rate(context.Background(), Options{
				Base: experiment.Options{Driver: "pebble", Store: filepath.Join(dir, "r.db"),
					Props: []string{"recordcount=2000", "pebble.dir=" + filepath.Join(dir, "data")}},
				SLA: mustSLA(t, "p99<2s"), Step: time.Second, SLADuration: time.Second,
				Start: 200, Max: 400, Reset: strategy,
			}, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			// The answer itself is the known-answer test's business (a loaded
			// machine can fail a 1 s experiment); here: how the data was reset.
			if !r.Found || r.Answer < 100 {
				t.Errorf("answer %v found=%v, want at least 100 ops/s", r.Answer, r.Found)
			}
			for _, s := range r.Steps {
				t.Logf("%s %g achieved %.1f pass=%v %s reset %s %.3fs, %.2fs", s.Kind, s.Target, s.Achieved, s.Pass, s.Reason, s.Reset, s.ResetS, s.Seconds)
			}
			if len(r.Steps) < 3 {
				t.Fatalf("%d steps, want 200, 400 and the final run at least", len(r.Steps))
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
		})
	}
}

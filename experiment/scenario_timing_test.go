package experiment

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
)

// oneNode is a cluster of one process (a sleep), for the injector's timing.
type oneNode struct{ pid int }

func (o oneNode) Resolve(context.Context, string) ([]cluster.Node, error) {
	return []cluster.Node{{Name: "n1", Role: "member", PID: o.pid}}, nil
}

func (o oneNode) Restart(context.Context, string) (cluster.Node, error) {
	return cluster.Node{}, nil
}

// TestRecurringTrigger: a pause every 5 s × 3 fires three times at the
// planned offsets into the measure phase (± 100 ms), and each heals.
func TestRecurringTrigger(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 11 s")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	e, _ := scenarioFile(t, `
  - {name: blink, fault: pause, target: n1, at: 1s, for: 500ms, every: 5s, count: 3}`)
	plan, err := scenarioPlan(e, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	evs := newEvents()
	in := newInjector(plan, oneNode{cmd.Process.Pid}, nil, evs.emit)
	done := make(chan struct{})
	go func() { defer close(done); in.run(context.Background()) }()
	t0 := time.Now()
	in.measureStarted(t0)
	for k, want := range []time.Duration{time.Second, 6 * time.Second, 11 * time.Second} {
		start := evs.next(t, EventFaultStart)
		end := evs.next(t, EventFaultEnd)
		at := start.Time.Sub(t0)
		t.Logf("firing %d (%s): planned +%v, fired +%v, healed after %v: %s", k+1, start.Name, want, at, end.Time.Sub(start.Time), end.Outcome)
		if d := at - want; d < -100*time.Millisecond || d > 100*time.Millisecond {
			t.Errorf("firing %d at +%v, planned +%v: off by %v (> 100 ms)", k+1, at, want, d)
		}
		if held := end.Time.Sub(start.Time); held < 500*time.Millisecond || held > 700*time.Millisecond {
			t.Errorf("firing %d held %v, want 500 ms", k+1, held)
		}
	}
	<-done
}

package scenario

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/measure"
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
	go func() { defer close(done); in.Run(context.Background()) }()
	t0 := time.Now()
	in.MeasureStarted(t0)
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

// second is a measure-phase interval ending now whose operations all took
// p99 µs, failed of them failing.
func second(p99 int64, failed int64) measure.Interval {
	h := measure.NewHistogram()
	for range 100 {
		h.RecordValue(p99)
	}
	end := time.Now()
	return measure.Interval{Phase: measure.PhaseMeasure, Start: end.Add(-time.Second), End: end,
		Ops: []measure.OpInterval{{Op: "READ", Count: 100, Errors: failed, Response: h}}}
}

// TestConditionalTrigger: a fault with when: stable, stable_for: 2s, armed
// at 300 ms, fires only once two calm seconds (p99 within the band of the
// seconds before it was armed, no failures) followed the arming: not after
// a slow second, not after a second with failures.
func TestConditionalTrigger(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	e, _ := scenarioFile(t, `
  - {name: calm-then, fault: pause, target: n1, at: 300ms, for: 100ms, when: stable, stable_for: 2s}`)
	plan, err := scenarioPlan(e, 30*time.Second)
	if err != nil || plan[0].Stable != 2*time.Second {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	evs := newEvents()
	in := newInjector(plan, oneNode{cmd.Process.Pid}, nil, evs.emit)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); in.Run(ctx) }()
	t0 := time.Now()
	in.MeasureStarted(t0)
	for _, p99 := range []int64{1000, 1100, 900} { // the baseline: band 1000 + 2σ(82) → 1164
		in.Interval(second(p99, 0))
	}
	time.Sleep(400 * time.Millisecond) // armed
	quiet := func(what string) {
		select {
		case ev := <-evs.got:
			t.Fatalf("fired after %s: %+v", what, ev)
		case <-time.After(200 * time.Millisecond):
		}
	}
	in.Interval(second(1000, 0))
	quiet("one calm second")
	in.Interval(second(5000, 0))
	quiet("a slow second")
	in.Interval(second(1000, 0))
	quiet("one calm second after the slow one")
	in.Interval(second(1000, 3))
	quiet("a second with failures")
	in.Interval(second(1000, 0))
	quiet("one calm second after the failures")
	in.Interval(second(1150, 0))
	ev := evs.next(t, EventFaultStart)
	if !strings.Contains(ev.Detail, "fired once stable for 2s") {
		t.Errorf("detail %q", ev.Detail)
	}
	evs.next(t, EventFaultEnd)
	<-done
}

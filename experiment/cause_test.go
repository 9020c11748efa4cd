package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
)

// A caller that stops a run with a cause (dbrig rate's early stop) has
// the cause stored as the run's message instead of "interrupted by signal".
func TestExecuteStoppedWithCause(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	p, err := Resolve(Options{Driver: "sim", Store: store,
		Props: []string{"recordcount=20", "sim.latency=1ms"}, Overrides: []Override{{Flag: "t", Key: "maxexecutiontime", Value: "60"}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	// Stopped at the measure phase's first interval, as an early stopper
	// does: after 1.2 s of wall time instead, a loaded machine was still
	// opening the results store, and nothing was stored.
	stop := stopAtFirst{phase: measure.PhaseMeasure, stop: func() { cancel(errors.New("stopped early: p95<1ms cannot hold")) }}
	out, err := Execute(ctx, p, Hooks{Observer: &stop})
	if out == nil || out.Status != StatusInterrupted {
		t.Fatalf("outcome %+v, err %v; want interrupted", out, err)
	}
	s, err := results.Open(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := s.Run(context.Background(), out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Message != "stopped early: p95<1ms cannot hold" {
		t.Errorf("stored message %q, want the cause", d.Message)
	}
}

// stopAtFirst calls stop at the first interval of phase.
type stopAtFirst struct {
	phase string
	stop  func()
	once  sync.Once
}

func (o *stopAtFirst) Interval(iv measure.Interval) {
	if iv.Phase == o.phase {
		o.once.Do(o.stop)
	}
}

func (*stopAtFirst) Event(run.Event) {}

package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbrig/dbrig/results"
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
	time.AfterFunc(1200*time.Millisecond, func() { cancel(errors.New("stopped early: p95<1ms cannot hold")) })
	out, err := Execute(ctx, p, Hooks{})
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

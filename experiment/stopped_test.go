package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
)

// earlyStop is a caller's early stop (what a rating's SLA rule gives).
type earlyStop struct{}

func (earlyStop) Error() string { return "stopped early: p99 over the limit" }
func (earlyStop) EarlyStop()    {}

// cancelOnMeasure cancels the run, with cause, at its first measure interval.
type cancelOnMeasure struct {
	cancel context.CancelCauseFunc
	cause  error
}

func (c cancelOnMeasure) Interval(iv measure.Interval) {
	if iv.Phase == measure.PhaseMeasure {
		c.cancel(c.cause)
	}
}
func (cancelOnMeasure) Event(run.Event) {}

// A run its caller stopped by its own rule is stored "stopped", with the
// reason; cancelled otherwise (Ctrl-C), "interrupted".
func TestEarlyStopIsNotAnInterrupt(t *testing.T) {
	tests := []struct {
		name       string
		cause      error
		wantStatus string
		wantMsg    string
	}{
		{"early stop", earlyStop{}, StatusStopped, "stopped early: p99 over the limit"},
		{"signal", context.Canceled, StatusInterrupted, "interrupted by signal"},
		{"other cause", errors.New("the coordinator went away"), StatusInterrupted, "the coordinator went away"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "r.db")
			p, err := Resolve(Options{Driver: "null", Store: store, PropFiles: []string{"workloada"},
				Props: []string{"recordcount=10", "operationcount=0", "maxexecutiontime=30"}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			out, _ := Execute(ctx, p, Hooks{Observer: cancelOnMeasure{cancel, tt.cause}})
			if out == nil || out.Status != tt.wantStatus {
				t.Fatalf("outcome %+v: want status %s", out, tt.wantStatus)
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
			if d.Status != tt.wantStatus || d.Message != tt.wantMsg {
				t.Errorf("stored %q %q, want %q %q", d.Status, d.Message, tt.wantStatus, tt.wantMsg)
			}
		})
	}
}

package experiment

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The short classic validation against the queue model. Timing-sensitive:
// it needs an otherwise idle machine, so scripts/test runs it alone.
func TestValidationShort(t *testing.T) {
	if os.Getenv("DBRIG_TIMING_TESTS") != "1" {
		t.Skip("timing-sensitive: set DBRIG_TIMING_TESTS=1 on an otherwise idle machine (scripts/test does)")
	}
	v := ClassicValidation(true)
	rep, err := v.Run(context.Background(), filepath.Join(t.TempDir(), "r.db"), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	us := func(x float64) time.Duration { return time.Duration(x * float64(time.Microsecond)) }
	t.Logf("predicted mean %v p99 %v; open %v p99 %v; closed send %v, closed from intended %v",
		rep.Predicted, rep.PredictedP99, us(rep.Open.Mean), us(float64(rep.Open.P99)), us(rep.ClosedSend.Mean), us(rep.ClosedResp.Mean))
	if !rep.Pass {
		t.Errorf("open-model mean %v is %.1f%% off the model's %v (tolerance %.0f%%)", us(rep.Open.Mean), 100*rep.Deviation, rep.Predicted, 100*v.Tolerance)
	}
	// The README's claim: a closed-loop client timing from its send reports
	// under 1 ms, while the stall costs every queued operation far more.
	if send := us(rep.ClosedSend.Mean); send >= time.Millisecond {
		t.Errorf("closed loop, send time: mean %v, want < 1ms (the coordinated-omission figure)", send)
	}
	if resp := us(rep.ClosedResp.Mean); resp < rep.Predicted/2 {
		t.Errorf("closed loop from intended start: mean %v, want close to the model's %v", resp, rep.Predicted)
	}
	if rep.Predicted < 100*time.Millisecond {
		t.Errorf("the model predicts %v: the hiccup should dominate (≥ 100ms)", rep.Predicted)
	}
}

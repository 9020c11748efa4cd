package analysis

import (
	"testing"
	"time"

	"github.com/dbrig/dbrig/results"
)

// By hand: before the fault (0-2 s) r1 lags at most 3000 bytes; cut from
// 2 s to 4 s it falls 50000 behind; after the heal at 4 s it is at 9000
// (4.2 s), then 2500 (4.4 s): caught up 0.4 s after the heal. r2 never
// gets back within its normal 0 before the window ends at 5 s.
func TestReplicaLags(t *testing.T) {
	g := func(node string, ms int, v float64) results.Gauge {
		return results.Gauge{Node: node, Name: results.GaugeReplayLag, T: time.Duration(ms) * time.Millisecond, Value: v}
	}
	gauges := []results.Gauge{
		g("r1", 0, 1000), g("r2", 0, 0),
		g("r1", 1000, 3000), g("r2", 1000, 0),
		g("r1", 2500, 20000), g("r2", 2500, 100),
		g("r1", 3800, 50000), g("r2", 3800, 100),
		g("r1", 4200, 9000), g("r2", 4200, 100),
		g("r1", 4400, 2500), g("r2", 4400, 50),
		{Node: "r1", Name: "other", T: 4300 * time.Millisecond, Value: 0},
		g("r1", 5200, 0), g("r2", 5200, 0), // after the window
	}
	got := replicaLags(gauges, 0, 2*time.Second, 2*time.Second, 4*time.Second, 5*time.Second)
	if len(got) != 2 {
		t.Fatalf("got %+v", got)
	}
	r1, r2 := got[0], got[1]
	if r1.Node != "r1" || r1.Normal != 3000 || r1.Max != 50000 || r1.CaughtUp == nil || *r1.CaughtUp != 400*time.Millisecond {
		t.Errorf("r1: %+v (caught up %v), want normal 3000, max 50000, caught up 400ms", r1, r1.CaughtUp)
	}
	if r2.Node != "r2" || r2.Normal != 0 || r2.Max != 100 || r2.CaughtUp != nil {
		t.Errorf("r2: %+v, want normal 0, max 100, not caught up", r2)
	}
	if replicaLags(nil, 0, 1, 1, 2, 3) != nil {
		t.Error("no gauges: want nil")
	}
}

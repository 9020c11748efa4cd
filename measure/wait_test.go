package measure

import (
	"math"
	"testing"
	"time"
)

func TestStartWait(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	us := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Microsecond) }
	type op struct{ intended, ready, started, ended int } // µs after t0
	for _, tt := range []struct {
		name             string
		ops              []op
		mean, lag, queue float64
	}{
		{"on time", []op{{0, 0, 0, 200}, {1000, 1000, 1000, 1300}}, 0, 0, 0},
		{"lag only", []op{{0, 0, 100, 300}, {1000, 1000, 1000, 1200}}, 50, 50, 0},
		// The second operation was due at 0 but its client was busy until
		// 500: 500 µs of queueing, none of it dbrig's.
		{"lag and queueing", []op{{0, 0, 100, 300}, {0, 500, 500, 700}}, 300, 50, 250},
		{"queueing only", []op{{0, 0, 0, 900}, {100, 900, 900, 1100}, {200, 1100, 1100, 1300}}, (800 + 900) / 3.0, 0, (800 + 900) / 3.0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRecorder([]string{"READ"})
			r.SetStart(t0)
			sh := r.Shard()
			for _, o := range tt.ops {
				sh.RecordReady(0, us(o.intended), us(o.ready), us(o.started), us(o.ended), nil)
			}
			sum := Summarize(PhaseMeasure, []Interval{r.Cut(PhaseMeasure, us(2000))}, nil)
			got := sum.StartWait()
			near := func(a, b float64) bool { return math.Abs(a-b) <= 1 } // histogram rounding
			if !near(got.MeanUS, tt.mean) || !near(got.LagMeanUS, tt.lag) || !near(got.QueueMeanUS, tt.queue) {
				t.Fatalf("StartWait = %+v, want mean %.1f = lag %.1f + queue %.1f", got, tt.mean, tt.lag, tt.queue)
			}
		})
	}
	if w := (Summary{}).StartWait(); w != (StartWait{}) {
		t.Fatalf("empty summary: %+v", w)
	}
}

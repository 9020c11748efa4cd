package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// workerRun builds a stored distributed run: n seconds of the measure
// phase, each worker doing ops[w] per second with target[w] ops/s asked.
func workerRun(ws []results.Worker, ops []int64, target []float64, lag []int64, secs int) Run {
	start := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	d := &results.RunDetail{}
	d.ID, d.Start, d.Workers = 7, start, ws
	r := Run{Detail: d}
	for k := 0; k < secs; k++ {
		var total int64
		for w := range ws {
			if ws[w].Status == results.WorkerLost && k >= secs/2 {
				continue
			}
			r.WorkerIntervals = append(r.WorkerIntervals, results.WorkerInterval{Index: ws[w].Index, Phase: measure.PhaseMeasure,
				Seq: k, Ops: ops[w], TargetRate: target[w], LagP99: lag[w], RespP99: 1000 * int64(w+1)})
			total += ops[w]
		}
		ivStart := start.Add(time.Duration(k) * time.Second)
		r.Intervals = append(r.Intervals, results.IntervalRow{Phase: measure.PhaseMeasure, Op: measure.OverallOp, Start: ivStart,
			T: time.Duration(k+1) * time.Second, Length: time.Second, Count: total, P99US: 2000})
	}
	return r
}

func TestWorkersOf(t *testing.T) {
	done := func(i, clients int, lagP99 int64) results.Worker {
		return results.Worker{Index: i, Host: "h", PID: 100 + i, Status: results.WorkerDone, Clients: clients, LagP99: lagP99, RespP50: 100, RespP99: 900}
	}
	lostAt := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name    string
		ws      []results.Worker
		ops     []int64
		target  []float64
		behind  []bool
		flagHas []string // substrings of the flags, in order
	}{
		{name: "all keep up with the target",
			ws: []results.Worker{done(0, 2, 50), done(1, 2, 60), done(2, 2, 40)}, ops: []int64{500, 480, 499}, target: []float64{500, 500, 500},
			behind: []bool{false, false, false}},
		{name: "one below 90 % of its target",
			ws: []results.Worker{done(0, 2, 50), done(1, 2, 60), done(2, 2, 40)}, ops: []int64{500, 300, 499}, target: []float64{500, 500, 500},
			behind: []bool{false, true, false}, flagHas: []string{"worker 1 fell behind: it completed 300 ops/s, 60 % of its share's target of 500 ops/s"}},
		{name: "closed model: clients at the others' pace",
			ws: []results.Worker{done(0, 2, 0), done(1, 1, 0), done(2, 2, 0)}, ops: []int64{2000, 400, 2000}, target: []float64{0, 0, 0},
			behind: []bool{false, true, false}, flagHas: []string{"worker 1 fell behind: it completed 400 ops/s, 40 % of the 1,000 ops/s its 1 clients"}},
		{name: "closed model: an uneven split is not behind",
			ws: []results.Worker{done(0, 2, 0), done(1, 1, 0)}, ops: []int64{2000, 1000}, target: []float64{0, 0},
			behind: []bool{false, false}},
		{name: "lag far above the others",
			ws: []results.Worker{done(0, 2, 200), done(1, 2, 38000), done(2, 2, 250)}, ops: []int64{500, 500, 500}, target: []float64{500, 500, 500},
			behind: []bool{false, true, false}, flagHas: []string{"worker 1's dispatch lag p99 is 38.0ms, 169× the other workers' median"}},
		{name: "lag above the others but below the floor",
			ws: []results.Worker{done(0, 2, 20), done(1, 2, 900), done(2, 2, 25)}, ops: []int64{500, 500, 500}, target: []float64{500, 500, 500},
			behind: []bool{false, false, false}},
		{name: "a lost worker",
			ws:  []results.Worker{done(0, 2, 50), {Index: 1, Status: results.WorkerLost, LostAt: lostAt, Detail: "connection lost: EOF", Clients: 2}},
			ops: []int64{500, 500}, target: []float64{500, 500},
			behind: []bool{false, true}, flagHas: []string{"worker 1 was lost at +5.0s (connection lost: EOF)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := WorkersOf(workerRun(tc.ws, tc.ops, tc.target, make([]int64, len(tc.ws)), 4))
			if w == nil {
				t.Fatal("WorkersOf = nil for a distributed run")
			}
			if len(w.Workers) != len(tc.ws) {
				t.Fatalf("%d workers, want %d", len(w.Workers), len(tc.ws))
			}
			for i, f := range w.Workers {
				if f.Behind != tc.behind[i] {
					t.Errorf("worker %d behind = %v, want %v (reasons %q)", i, f.Behind, tc.behind[i], f.Reasons)
				}
			}
			if len(w.Flags) != len(tc.flagHas) {
				t.Fatalf("flags = %q, want %d", w.Flags, len(tc.flagHas))
			}
			for i, want := range tc.flagHas {
				if !strings.Contains(w.Flags[i], want) {
					t.Errorf("flag %d = %q, want it to contain %q", i, w.Flags[i], want)
				}
			}
			if len(w.Charts) != 2 || len(w.Charts[0].Lines) != len(tc.ws)+1 {
				t.Fatalf("charts = %d, lines %d; want 2 charts, a line per worker and the merged one", len(w.Charts), len(w.Charts[0].Lines))
			}
		})
	}
}

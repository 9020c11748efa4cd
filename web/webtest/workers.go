package webtest

import (
	"context"
	"fmt"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// AddWorkers makes a stored run a distributed one of n workers
// (run_workers, run_worker_intervals): every merged interval is split
// evenly, except that worker slow (if 0 ≤ slow < n) does half of its share
// in the measure phase, with a dispatch lag p99 of 40 ms against 0.2 ms,
// and a target of the run's rate over n.
func AddWorkers(ctx context.Context, s *results.Store, r Run, n, slow int) error {
	ws := make([]results.Worker, n)
	for i := range ws {
		ws[i] = results.Worker{Index: i, Host: fmt.Sprintf("host%d", i), PID: 1000 + i, Status: results.WorkerDone,
			Clients: 8 / n, RespP50: 200, RespP99: 900, LagP99: 200}
		if i == slow {
			ws[i].RespP50, ws[i].RespP99, ws[i].LagP99 = 900, 45000, 40000
		}
	}
	var ivs []results.WorkerInterval
	seq := map[string]int{}
	for _, iv := range r.Intervals {
		var ops int64
		for _, o := range iv.Ops {
			ops += o.Count
		}
		k := seq[iv.Phase]
		seq[iv.Phase]++
		for i := range ws {
			w := results.WorkerInterval{Index: i, Phase: iv.Phase, Seq: k, Ops: ops / int64(n), LagP99: 200, RespP99: 900,
				TargetRate: 1000 / float64(n)}
			if i == slow && iv.Phase == measure.PhaseMeasure {
				w.Ops /= 2
				w.LagP99, w.RespP99 = 40000, 45000
			}
			if iv.Phase != measure.PhaseLoad {
				ws[i].Ops += w.Ops
			}
			ivs = append(ivs, w)
		}
	}
	if err := s.AddWorkers(ctx, r.ID, ws); err != nil {
		return err
	}
	return s.AddWorkerIntervals(ctx, r.ID, ivs)
}

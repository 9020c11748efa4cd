package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
)

// virtualRun stores a run of the simulated store as dbrig run would (sim,
// workload C, 4 clients, 6 s, tagged), its measure phase played in virtual
// time: each client's reads back to back, each taking latency ±5 %
// (seeded), so what the run measured does not depend on how busy the
// machine is. It returns the run's id.
func virtualRun(t *testing.T, store string, latency time.Duration, seed uint64, tag string) int64 {
	t.Helper()
	const clients, secs = 4, 6
	p, err := experiment.Resolve(experiment.Options{Driver: "sim", Store: store, PropFiles: []string{"workloadc"}, Tags: []string{tag},
		Props: []string{"recordcount=100", "operationcount=0", "sim.latency=" + latency.String()},
		Overrides: []experiment.Override{{Flag: "test", Key: "threadcount", Value: fmt.Sprint(clients)},
			{Flag: "test", Key: "maxexecutiontime", Value: fmt.Sprint(secs)}}})
	if err != nil {
		t.Fatal(err)
	}
	perform := func(ctx context.Context, _ *results.Store, _ int64, obs run.Observer) ([]measure.Summary, error) {
		ops := p.Workload.Ops()
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		rng := rand.New(rand.NewPCG(seed, 1))
		rec := measure.NewRecorder(ops)
		rec.SetStart(start)
		acc := measure.NewAccumulator(measure.PhaseMeasure, ops...)
		obs.Event(run.Event{Time: start, Kind: run.EventPhaseStart, Name: measure.PhaseMeasure})
		free := make([]time.Time, clients) // when each client's last read ended
		for i := range free {
			free[i] = start
		}
		for s := 1; s <= secs; s++ {
			cut := start.Add(time.Duration(s) * time.Second)
			shard := rec.Shard()
			for {
				c := 0 // the client that is free first
				for i := range free {
					if free[i].Before(free[c]) {
						c = i
					}
				}
				if !free[c].Before(cut) {
					break
				}
				begin := free[c]
				free[c] = begin.Add(time.Duration(float64(latency) * (0.95 + 0.1*rng.Float64())))
				shard.RecordReady(0, begin, begin, begin, free[c], nil)
			}
			iv := rec.Cut(measure.PhaseMeasure, cut)
			acc.Add(iv)
			obs.Interval(iv)
		}
		obs.Event(run.Event{Time: start.Add(secs * time.Second), Kind: run.EventPhaseEnd, Name: measure.PhaseMeasure})
		return []measure.Summary{acc.Summary(nil)}, ctx.Err()
	}
	out, err := experiment.Execute(context.Background(), p, experiment.Hooks{Perform: perform})
	if err != nil {
		t.Fatal(err)
	}
	return out.RunID
}

package analysis

import (
	"context"

	"github.com/dbrig/dbrig/results"
)

// StoredWorkers reads a distributed run's per-worker figures back from the
// store storeDSN (each worker reported its own; a merged outcome has none),
// so a run's --json says which worker fell behind as `runs show --json`
// does. It reads also after ctx is cancelled: an interrupted run's workers
// are still worth printing.
func StoredWorkers(ctx context.Context, storeDSN string, id int64) (*Workers, error) {
	ctx = context.WithoutCancel(ctx)
	store, err := results.OpenExisting(ctx, storeDSN)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	runs, err := ReadRuns(ctx, store, []int64{id})
	if err != nil {
		return nil, err
	}
	return WorkersOf(runs[0]), nil
}

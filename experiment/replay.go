package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/scenario"
)

// The exact fault plan of a run is stored with it (results.FaultPlan):
// every firing with its fault, settings, target, link, offset and length,
// resolved from the scenario before the run started. ReplayBench runs an
// experiment file again with a stored run's plan and seed instead of the
// file's scenario and seed. A role (leader) stays a role: it is resolved
// when the fault fires, as in the original run, whose events say which node
// it was.

// ErrNoPlan is returned when a run to replay has no stored fault plan.
var ErrNoPlan = errors.New("no fault plan stored with the run")

// ReplayBench resolves an experiment file to run again with the fault plan
// and seed of stored run runID. An empty path takes the file the run was
// started from (its stored command, dbrig bench FILE).
func ReplayBench(ctx context.Context, path string, runID int64, o BenchOptions) (*Bench, error) {
	store, err := results.Open(ctx, o.Store)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	d, err := store.Run(ctx, runID)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("--replay %d: %w", runID, err)}
	}
	stored, err := store.FaultPlan(ctx, runID)
	if err != nil {
		return nil, err
	}
	if len(stored) == 0 {
		return nil, &InputError{Err: fmt.Errorf("--replay %d: %w (it had no faults, or ran before dbrig stored plans)", runID, ErrNoPlan)}
	}
	if path == "" {
		f, ok := strings.CutPrefix(d.Info.Command, "dbrig bench ")
		if !ok || strings.TrimSpace(f) == "" {
			return nil, &InputError{Err: fmt.Errorf("--replay %d: the run was not started from an experiment file (%q): give the file", runID, d.Info.Command)}
		}
		path = strings.TrimSpace(f)
	}
	o.Sets = append(append([]string(nil), o.Sets...), fmt.Sprintf("seed=%d", d.Info.Load.Seed))
	b, err := ResolveBench(path, o)
	if err != nil {
		return nil, err
	}
	for _, r := range b.Runs {
		plan, err := scenario.FromStored(stored, r.Plan.Faults)
		if err != nil {
			return nil, &InputError{Err: fmt.Errorf("--replay %d: %w", runID, err)}
		}
		if r.Plan.Cluster == nil {
			return nil, &InputError{Err: fmt.Errorf("--replay %d: %s has no local cluster to inject faults into", runID, path)}
		}
		for _, in := range plan {
			if d := r.Plan.Config.Duration; d > 0 && in.At+in.For > d {
				return nil, &InputError{Err: fmt.Errorf("--replay %d: fault %s (at %v for %v) outlasts the measure phase of %s (%v)",
					runID, in.Name, in.At, in.For, path, d)}
			}
		}
		r.Plan.Faults = plan
		r.Plan.Tags = append(r.Plan.Tags, fmt.Sprintf("replay:%d", runID))
	}
	return b, nil
}

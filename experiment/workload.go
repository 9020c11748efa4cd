package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload"
	"github.com/dbrig/dbrig/workload/timeseries"
	"github.com/dbrig/dbrig/workload/tpcc"
	"github.com/dbrig/dbrig/workload/ycsb"
)

// newWorkload builds the workload the properties choose: TPC-C for
// workload=tpcc (-P tpcc), a time-series workload (YCSB's
// TimeSeriesWorkload, devops), else YCSB's CoreWorkload.
func newWorkload(props *spec.Props) (workload.Workload, []string, error) {
	if w, ok, err := timeseries.Choose(props); ok {
		if err != nil {
			return nil, nil, err
		}
		return w, unimplementedWarning(props), nil
	}
	if tpcc.Is(props) {
		props.Declare(tpcc.Props()...)
		w, err := tpcc.New(props)
		if err != nil {
			return nil, nil, err
		}
		return w, nil, nil
	}
	if err := checkWorkloadClass(props); err != nil {
		return nil, nil, err // a class dbrig lacks: never the core workload in its place
	}
	w, err := ycsb.New(props)
	if err != nil {
		return nil, nil, err
	}
	return w, unimplementedWarning(props), nil
}

// unimplementedWarning names the YCSB properties set that dbrig ignores.
func unimplementedWarning(props *spec.Props) []string {
	if ignored := ycsb.Unimplemented(props); len(ignored) > 0 {
		return []string{fmt.Sprintf("YCSB properties dbrig does not implement, ignored: %s (dbrig's own outputs: --hdrlog, --json, the results store)", strings.Join(ignored, ", "))}
	}
	return nil
}

// builtinFile returns a built-in property file: YCSB's workloads, its
// time-series workloads and devops, tpcc.
func builtinFile(name string) ([]byte, bool) {
	if b, ok := ycsb.Builtin(name); ok {
		return b, true
	}
	if b, ok := timeseries.Builtin(name); ok {
		return b, true
	}
	return tpcc.Builtin(name)
}

// builtinNames lists the built-in property files.
func builtinNames() []string {
	return append(append(ycsb.BuiltinNames(), timeseries.BuiltinNames()...), tpcc.Name)
}

// prepareWorkload lets a workload that sets its data set up itself
// (workload.Preparer) do so; handled is false for the others. A data set
// it finds complete skips the load phase.
func (p *Plan) prepareWorkload(ctx context.Context, db driver.DB) (handled bool, err error) {
	pr, ok := p.Workload.(workload.Preparer)
	if !ok {
		return false, nil
	}
	if p.SkipLoad {
		return true, nil
	}
	loaded, err := pr.Prepare(ctx, db, p.Recreate)
	var ie *workload.InputError
	switch {
	case errors.As(err, &ie) || IsInput(err):
		return true, &InputError{Err: err}
	case err != nil:
		return true, fmt.Errorf("prepare the %s data set: %w", p.WorkloadName(), err)
	}
	if loaded {
		p.SkipLoad = true
	}
	return true, nil
}

// tableOf is the table a key-value workload loads ("" for others).
func tableOf(w workload.Workload) string {
	if t, ok := w.(interface{ Table() string }); ok {
		return t.Table()
	}
	return ""
}

// loadOps is how many load operations the workload's load phase performs.
func (p *Plan) loadOps() (int64, bool) {
	if l, ok := p.Workload.(interface{ LoadOps() int64 }); ok {
		return l.LoadOps(), true
	}
	return 0, false
}

// afterRun computes the workload's headline metrics from the measure phase
// (workload.Headliner), runs its consistency checks when asked
// (workload.Checker: consistency_ok 1 or 0, and a failed check is the
// run's error), and stores the metrics with the run.
func (p *Plan) afterRun(ctx context.Context, db driver.DB, store *results.Store, runID int64, sums []measure.Summary, runErr error) ([]results.RunMetric, error) {
	var ms []results.RunMetric
	if h, ok := p.Workload.(workload.Headliner); ok {
		if sum, ok := measure.Measured(sums); ok {
			ops := make([]workload.OpCount, len(sum.Ops))
			for i, o := range sum.Ops {
				ops[i] = workload.OpCount{Op: o.Op, Count: o.Count, Errors: o.Errors}
			}
			for _, m := range h.Headline(sum.End.Sub(sum.Start), ops) {
				ms = append(ms, results.RunMetric{Name: m.Name, Value: m.Value, Unit: m.Unit, Doc: m.Doc})
			}
		}
	}
	var checkErr error
	if c, ok := p.Workload.(workload.Checker); ok && c.CheckEnabled() && runErr == nil && !p.LoadOnly {
		checkErr = c.Check(ctx, db)
		ok := 1.0
		if checkErr != nil {
			ok = 0
			checkErr = fmt.Errorf("%s: %w", p.WorkloadName(), checkErr)
		}
		ms = append(ms, results.RunMetric{Name: "consistency_ok", Value: ok, Doc: "the workload's consistency checks after the run: 1 passed, 0 failed"})
	}
	if len(ms) > 0 {
		if err := store.AddRunMetrics(ctx, runID, ms); err != nil {
			return ms, errors.Join(checkErr, err)
		}
	}
	return ms, checkErr
}

// recordsPerLoadOp is how many records one load operation inserts: the
// batch, or for a workload that loads in its own chunks (tpcc) their mean.
func (p *Plan) recordsPerLoadOp() int64 {
	if n, ok := p.loadOps(); ok && n > 0 {
		return max(1, p.Workload.LoadCount()/n)
	}
	return int64(p.Config.LoadBatch)
}

package rating

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/run"
)

// KindProbe is the kind of the capacity probe's step (beside "search" and
// "final").
const KindProbe = "probe"

// The capacity probe. Growing from 100 ops/s, a search spends one passing
// experiment (and its reset) per doubling before it gets near the answer:
// at 1 M records on PostgreSQL, 6 of 20 experiments from 500 ops/s. By rate
// with no start given, the rating first measures what the open model's
// client pool can get done at all: one closed-model experiment of δ in
// which the pool's clients issue operations back to back. An open model
// with the same pool cannot hold a higher rate than that for long (its
// queue would grow without bound), and an SLA's answer usually lies
// between half of it and all of it, so the search starts at half and grows
// to the capacity, beyond it only in small steps (searcher.grow); or the
// first target fails and the search halves down as from any start. The
// probe is
// an experiment like the others (a stored run, its reset before it, η·δ);
// it has no verdict and is not part of the spread.

// probeOptions is the base as the probe runs it: the closed model with
// the rating's client pool, for dur.
func (o *Options) probeOptions(dur time.Duration, name string, tags []string) experiment.Options {
	e := o.timed(dur, name, tags)
	e.Model = run.ClosedName
	return e
}

// probeStart runs the capacity probe and returns where the search starts
// (half the throughput the pool achieved, within [1, Max]) and the
// capacity (0 if the probe completed nothing).
func (r *rater) probeStart(ctx context.Context) (start, capacity float64, err error) {
	st, err := r.attempt(ctx, KindProbe, 0, r.opts.Step, false, 1)
	if err != nil {
		return 0, 0, err
	}
	start = DefaultStartRate
	if st.Achieved > 0 {
		start = math.Max(1, st.Achieved/2)
	} else {
		r.hooks.Warn(fmt.Errorf("the capacity probe (run %d) completed no operation: the search starts at %s", st.RunID, format.Target(ByRate, start)))
	}
	if r.opts.Max > 0 && start > r.opts.Max {
		start = r.opts.Max
	}
	return start, st.Achieved, nil
}

// probeReason says what the probe measured and what the search makes of it.
func probeReason(clients int, achieved float64) string {
	return fmt.Sprintf("capacity probe: %d clients back to back (closed model) completed %s ops/s; the search starts at half of it",
		clients, format.Rate(achieved))
}

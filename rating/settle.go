package rating

import (
	"context"
	"errors"
	"fmt"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/results"
)

// The settle step: after the first load and after each reset, a store
// that can (driver.Settler) finishes the background work the load or reset
// started before the experiment opens it: Pebble's flushes and
// compactions, PostgreSQL's vacuum of the rows just written. Without it
// that work lands inside some experiments and not others, and two ratings
// of the same store disagree. Its time is part of the reset's (ν), or of
// the first load's (ζ), and is shown apart as settle_s. Then a store that
// can (driver.Conditioner) measures the condition it settled to
// (condition.go).

// settles tells whether this rating settles the store between experiments.
func (r *rater) settles() bool { return r.settler && !r.opts.NoSettle }

// loadApart makes the load of eo a run of its own, so that the store can
// settle between the load and the experiment: loaded inside it, the
// load's compactions or vacuum run in its warmup and measured window.
// With an unpredictable term the load stays inside (its writes are
// stamped there).
func (r *rater) loadApart(ctx context.Context, eo *experiment.Options) error {
	if !r.settles() || eo.SkipLoad || r.opts.SLA.HasUnpredictable() {
		return nil
	}
	if err := r.loadOnly(ctx, *eo, eo.Recreate); err != nil {
		return err
	}
	eo.SkipLoad, eo.Recreate = true, false
	return nil
}

// settle waits for the store to finish its background work, on a driver
// opened for it, records how long that took, and measures the store's
// condition. A store that does not settle within its bound is a warning:
// the experiment runs anyway.
func (r *rater) settle(ctx context.Context, st *Step) error {
	if r.opts.condition != nil && !r.settles() { // tests: no driver to open
		r.condition(ctx, nil, st)
		return nil
	}
	if !r.settles() && !r.conditioner {
		return nil
	}
	began := r.now()
	db, done, err := r.openDriver(ctx, r.first)
	if err != nil {
		return err
	}
	defer done()
	if r.settles() {
		err = db.(driver.Settler).Settle(ctx, r.table)
		st.SettleS = r.now().Sub(began).Seconds()
		r.res.Time.SettleS += st.SettleS
		if errors.Is(err, driver.ErrNotSettled) {
			r.hooks.Warn(fmt.Errorf("the %s experiment at %s starts on an unsettled store: %w", st.Kind, format.Target(r.opts.By, st.Target), err))
			err = nil
		}
		if err != nil {
			return fmt.Errorf("settle %s: %w", r.table, err)
		}
	}
	r.condition(ctx, db, st)
	return nil
}

// settleMetric stores the settle time with the experiment's run.
func settleMetric(st Step) []results.RunMetric {
	return []results.RunMetric{{Name: "settle_s", Value: st.SettleS, Doc: "seconds the store settled (driver.Settler) before this experiment, part of its reset"}}
}

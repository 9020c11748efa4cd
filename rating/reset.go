package rating

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/experiment"
)

// resetLoad marks the experiment that loaded the data set first (ζ).
const resetLoad = "load"

// dataPath names, per embedded driver, the property that keeps its data
// outside the run's scratch directory; without it the data set lives only
// as long as one experiment's driver, and only reload can work.
var dataPath = map[string]string{"pebble": "pebble.dir", "sqlite": "sqlite.path", "sim": "", "null": ""}

// ephemeralData tells whether the plan's data set disappears with its driver.
func ephemeralData(p *experiment.Plan) bool {
	key, embedded := dataPath[p.Driver]
	if !embedded {
		return false
	}
	if key == "" {
		return true
	}
	v, _, ok := p.Props.Lookup(key)
	return !ok || v == ""
}

// checkStrategy refuses, before anything is loaded, a strategy the system
// cannot do, and says which ones work.
func (r *rater) checkStrategy(ctx context.Context, first *experiment.Plan) error {
	r.ephemeral = ephemeralData(first)
	r.first = first
	works := []string{ResetReload}
	canSnapshot, canReset := false, r.ephemeral
	if !r.ephemeral {
		db, done, err := r.openDriver(ctx, first)
		if err != nil {
			return err
		}
		_, canSnapshot = db.(driver.Snapshotter)
		_, canReset = db.(driver.Resetter)
		done()
		if canSnapshot {
			works = append(works, ResetSnapshot)
		}
		works = append(works, ResetKeep)
		if !canReset {
			works = works[1:]
		}
	}
	if r.opts.Reset == ResetKeep {
		if mix := changingMix(first); mix != "" {
			return input(fmt.Errorf("--reset keep: the workload %s, and dbrig does not carry the key sequence over between experiments yet (the next experiment would insert duplicate keys or read deleted ones); use --reset %s", mix, strings.Join(without(works, ResetKeep), " or --reset ")))
		}
	}
	for _, w := range works {
		if w == r.opts.Reset {
			return nil
		}
	}
	why := ""
	switch {
	case r.ephemeral && dataPath[first.Driver] != "":
		why = fmt.Sprintf("the data of %s lives in each run's scratch directory (give -p %s=PATH to keep it between experiments)", first.Driver, dataPath[first.Driver])
	case r.ephemeral:
		why = fmt.Sprintf("the data of %s lives only as long as one experiment", first.Driver)
	case r.opts.Reset == ResetSnapshot:
		why = fmt.Sprintf("driver %s cannot take snapshots (no driver.Snapshotter)", first.Driver)
	case r.opts.Reset == ResetReload:
		why = fmt.Sprintf("driver %s cannot drop its data (no driver.Resetter)", first.Driver)
	}
	return input(fmt.Errorf("--reset %s: %s; strategies that work here: %s", r.opts.Reset, why, strings.Join(works, ", ")))
}

func without(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

// changingMix says how the workload changes the set of keys ("" if not).
func changingMix(p *experiment.Plan) string {
	var parts []string
	for _, k := range []string{"insertproportion", "deleteproportion"} {
		if f, err := p.Props.Float(k, 0); err == nil && f > 0 {
			parts = append(parts, k+"="+strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "inserts or deletes (" + strings.Join(parts, ", ") + ")"
}

// snapshotName is the image a rating keeps.
func (r *rater) snapshotName() string { return "dbrig_rating_" + strconv.FormatInt(r.id, 10) }

// prepare sets how the experiment gets its data set and resets it first.
func (r *rater) prepare(ctx context.Context, eo *experiment.Options, st *Step) error {
	if !r.loaded {
		st.Reset = resetLoad // the base's SkipLoad and Recreate, as given
		r.loaded = true
		return nil
	}
	eo.SkipLoad, eo.Recreate = false, false
	switch {
	case r.ephemeral || r.opts.Reset == ResetReload:
		st.Reset = ResetReload
		eo.Recreate = !r.ephemeral
	case r.opts.Reset == ResetKeep:
		st.Reset, eo.SkipLoad = ResetKeep, true
	case r.opts.Reset == ResetSnapshot:
		st.Reset, eo.SkipLoad = ResetSnapshot, true
		db, done, err := r.openDriver(ctx, r.first)
		if err != nil {
			return err
		}
		defer done()
		if err := db.(driver.Snapshotter).Restore(ctx, r.table, r.snapshotName()); err != nil {
			return fmt.Errorf("restore snapshot %s of %s: %w", r.snapshotName(), r.table, err)
		}
	}
	return nil
}

// takeSnapshot takes the image after the first load.
func (r *rater) takeSnapshot(ctx context.Context, p *experiment.Plan) error {
	db, done, err := r.openDriver(ctx, p)
	if err != nil {
		return err
	}
	defer done()
	if err := db.(driver.Snapshotter).Snapshot(ctx, r.table, r.snapshotName()); err != nil {
		return fmt.Errorf("snapshot %s of %s: %w", r.snapshotName(), r.table, err)
	}
	r.snapshot = true
	return nil
}

// dropSnapshot removes the image when the rating ends.
func (r *rater) dropSnapshot(ctx context.Context) {
	if !r.snapshot {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	db, done, err := r.openDriver(ctx, r.first)
	if err != nil {
		r.hooks.Warn(err)
		return
	}
	defer done()
	if err := db.(driver.Snapshotter).DropSnapshot(ctx, r.table, r.snapshotName()); err != nil {
		r.hooks.Warn(fmt.Errorf("drop snapshot %s: %w", r.snapshotName(), err))
	}
}

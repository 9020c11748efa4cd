package rating

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
)

// resetLoad marks the experiment that loaded the data set first (ζ).
const resetLoad = "load"

// ephemeralData tells whether the plan's data set disappears with its
// driver: an embedded system's (driver.Embedded) unless its DataProp keeps
// the data outside the run's scratch directory; then only reload can work.
func ephemeralData(p *experiment.Plan) bool {
	e := p.Registry[p.Driver].Embedded
	if e == nil {
		return false
	}
	if e.DataProp == "" {
		return true
	}
	v, _, ok := p.Props.Lookup(e.DataProp)
	return !ok || v == ""
}

// checkStrategy refuses, before anything is loaded, a strategy the system
// cannot do, and says which ones work.
func (r *rater) checkStrategy(ctx context.Context, first *experiment.Plan) error {
	r.ephemeral = ephemeralData(first)
	r.first = first
	works := []string{ResetReload}
	canSnapshot, canReset := false, r.ephemeral
	var regenErr error
	if !r.ephemeral && r.table != "" {
		db, done, err := r.openDriver(ctx, first)
		if err != nil {
			return err
		}
		_, canSnapshot = db.(driver.Snapshotter)
		if !canSnapshot && r.standing != nil && r.standing.CanImage() == nil {
			canSnapshot, r.image = true, true
		}
		_, canReset = db.(driver.Resetter)
		_, r.keyRestore = db.(driver.KeyRestorer)
		_, r.settler = db.(driver.Settler)
		_, r.conditioner = db.(driver.Conditioner)
		done()
		works, regenErr = strategies(first, canSnapshot, canReset)
	}
	r.canSnapshot = canSnapshot
	r.keyRestore = r.keyRestore && canSnapshot && !r.image
	if r.opts.Reset == ResetKeep || r.opts.Reset == ResetRepair || r.opts.Reset == ResetSnapshot {
		n, err := first.Props.Int("recordcount", 0)
		if err != nil {
			return input(err)
		}
		r.records = n
		if f, err := first.Props.Float("deleteproportion", 0); err == nil && f > 0 {
			r.deletes = true
		}
	}
	for _, w := range works {
		if w == r.opts.Reset {
			return nil
		}
	}
	why := ""
	switch {
	case r.ephemeral && first.Registry[first.Driver].Embedded.DataProp != "":
		why = fmt.Sprintf("the data of %s lives in each run's scratch directory (give -p %s=PATH to keep it between experiments)", first.Driver, first.Registry[first.Driver].Embedded.DataProp)
	case r.ephemeral:
		why = fmt.Sprintf("the data of %s lives only as long as one experiment", first.Driver)
	case r.table == "":
		why = fmt.Sprintf("workload %s has no single key-value table to snapshot or keep", first.WorkloadName())
	case r.opts.Reset == ResetSnapshot && r.standing != nil:
		why = noSnapshot(first.Driver, r.standing.CanImage())
	case r.opts.Reset == ResetSnapshot:
		why = fmt.Sprintf("driver %s cannot take snapshots (no driver.Snapshotter; with system.cluster in an experiment file, dbrig would copy the nodes' data directories)", first.Driver)
	case r.opts.Reset == ResetRepair:
		why = fmt.Sprintf("repair rewrites the records the load wrote, and %v", regenErr)
	case r.opts.Reset == ResetReload:
		why = fmt.Sprintf("driver %s cannot drop its data (no driver.Resetter)", first.Driver)
	}
	return input(fmt.Errorf("--reset %s: %s; strategies that work here: %s", r.opts.Reset, why, strings.Join(works, ", ")))
}

// strategies lists the strategies that work on a table of a system that
// keeps its data between drivers, given what its DB can do, and why repair
// does not (nil if it does).
func strategies(first *experiment.Plan, canSnapshot, canReset bool) ([]string, error) {
	var works []string
	if canReset {
		works = append(works, ResetReload)
	}
	if canSnapshot {
		works = append(works, ResetSnapshot)
	}
	works = append(works, ResetKeep)
	g, ok := first.Workload.(regenerator)
	if !ok {
		return works, fmt.Errorf("workload %s cannot regenerate its records", first.WorkloadName())
	}
	if _, err := g.Originals(nil); err != nil {
		return works, err
	}
	return append(works, ResetRepair), nil
}

// noSnapshot says why a cluster's system cannot snapshot: its driver
// cannot, and imgErr says why its nodes cannot be imaged.
func noSnapshot(drv string, imgErr error) string {
	return fmt.Sprintf("driver %s cannot take snapshots (no driver.Snapshotter), and no image of the cluster's data directories: %v", drv, imgErr)
}

// plannedSnapshot says why reset cannot work before first's cluster (the
// experiment file's) starts, or nil: a snapshot where the driver's DB
// (driver.Driver.Type) has no snapshots of its own and the planned nodes
// keep their data in memory, so no image of them can be taken either.
// What it cannot tell before the start, checkStrategy asks after.
func plannedSnapshot(reset string, first *experiment.Plan) error {
	if reset != ResetSnapshot || first.Cluster == nil || tableOf(first) == "" || ephemeralData(first) {
		return nil
	}
	typ := first.Registry[first.Driver].Type
	if _, ok := typ.(driver.Snapshotter); ok || typ == nil {
		return nil
	}
	imgErr := first.Cluster.CanImage()
	if !errors.Is(imgErr, cluster.ErrNoImage) {
		return nil // images work, or standing the cluster up says why not
	}
	_, canReset := typ.(driver.Resetter)
	works, _ := strategies(first, false, canReset)
	return fmt.Errorf("%s; strategies that work here: %s", noSnapshot(first.Driver, imgErr), strings.Join(works, ", "))
}

// tableOf is the one key-value table of first's workload (YCSB's), which
// snapshots and keep work on; "" for a workload without one (TPC-C), which
// can only be reloaded.
func tableOf(first *experiment.Plan) string {
	if t, ok := first.Workload.(interface{ Table() string }); ok {
		return t.Table()
	}
	return ""
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

// snapshotName is the image a rating keeps.
func (r *rater) snapshotName() string { return "dbrig_rating_" + strconv.FormatInt(r.id, 10) }

// prepare sets how the experiment gets its data set, resets it first and
// lets the store settle (settle.go).
func (r *rater) prepare(ctx context.Context, eo *experiment.Options, st *Step) error {
	if err := r.prepareData(ctx, eo, st); err != nil {
		return err
	}
	if st.Reset == resetLoad && r.wantsSnapshot() && !r.opts.SLA.HasUnpredictable() {
		// The image is the data set as loaded, taken before the first
		// experiment writes: taken after it, it would hold that
		// experiment's inserts, and every later one (whose inserts start
		// at recordcount again) would insert keys that exist.
		if !eo.SkipLoad {
			if err := r.loadOnly(ctx, *eo, eo.Recreate); err != nil {
				return err
			}
			eo.SkipLoad, eo.Recreate = true, false
		}
		if err := r.takeSnapshot(ctx); err != nil {
			return err
		}
	}
	if st.Reset == resetLoad || st.Reset == ResetReload {
		if err := r.loadApart(ctx, eo); err != nil {
			return err
		}
	}
	return r.settle(ctx, st)
}

// wantsSnapshot tells whether the rating keeps an image of the data set:
// for snapshot, and for keep's fallback after deletes.
func (r *rater) wantsSnapshot() bool {
	return !r.ephemeral && (r.opts.Reset == ResetSnapshot || r.opts.Reset == ResetKeep && r.deletes && r.canSnapshot)
}

// prepareData sets how the experiment gets its data set and resets it.
func (r *rater) prepareData(ctx context.Context, eo *experiment.Options, st *Step) error {
	if r.opts.Reset == ResetRepair && !r.ephemeral {
		return r.prepareRepair(ctx, eo, st) // repair.go
	}
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
	case r.opts.Reset == ResetKeep && r.dirty == "":
		// LoadFree: the data as the last experiment left it, and the insert
		// key sequence carried over: the next inserts start after the keys
		// acknowledged so far, and reads may choose those keys.
		st.Reset, eo.SkipLoad = ResetKeep, true
		eo.Overrides = append(eo.Overrides, experiment.Override{Flag: "rate --reset keep", Key: "recordcount",
			Value: strconv.FormatInt(r.records+r.inserted, 10)})
	case r.opts.Reset == ResetKeep && !r.snapshot:
		// keep cannot keep (the hybrid): reload, and say why.
		st.Reset, st.Fallback, eo.Recreate = ResetReload, r.dirty, true
		r.dirty, r.inserted = "", 0
	case r.opts.Reset == ResetSnapshot || r.opts.Reset == ResetKeep:
		st.Reset, eo.SkipLoad = ResetSnapshot, true
		if r.opts.Reset == ResetKeep {
			st.Fallback = r.dirty
			r.dirty, r.inserted = "", 0
		}
		n, err := r.restoreImage(ctx, st.Fallback == "")
		st.Keys = n
		return err
	}
	return nil
}

// restoreImage puts the snapshot back: only the keys the last experiment
// wrote when the driver can and the log holds every key (repair.go, and
// keys is true), else the whole image. It returns how many keys it put
// back (0: the whole image).
func (r *rater) restoreImage(ctx context.Context, keys bool) (int64, error) {
	if r.image {
		if err := r.standing.RestoreImage(ctx, r.snapshotName()); err != nil {
			return 0, fmt.Errorf("restore the %s cluster's image %s: %w", r.standing.System(), r.snapshotName(), err)
		}
		return 0, nil
	}
	db, done, err := r.openDriver(ctx, r.first)
	if err != nil {
		return 0, err
	}
	defer done()
	if written, ok := r.written(); ok && r.keyRestore && keys {
		if err := db.(driver.KeyRestorer).RestoreKeys(ctx, r.table, r.snapshotName(), written); err != nil {
			return 0, fmt.Errorf("restore %d keys of snapshot %s of %s: %w", len(written), r.snapshotName(), r.table, err)
		}
		return int64(len(written)), nil
	}
	if err := db.(driver.Snapshotter).Restore(ctx, r.table, r.snapshotName()); err != nil {
		return 0, fmt.Errorf("restore snapshot %s of %s: %w", r.snapshotName(), r.table, err)
	}
	return 0, nil
}

// leaveLoaded puts the data set back as the load left it when the rating
// ends, so that the next rating can run on it (--skip-load): snapshot
// restores its image, repair repairs the last experiment's writes. reload
// and keep leave it as the last experiment left it. It reports what it
// did ("" if nothing).
func (r *rater) leaveLoaded(ctx context.Context) (string, error) {
	if r.ephemeral || r.seq == 0 {
		return "", nil
	}
	switch {
	case r.opts.Reset == ResetSnapshot && r.snapshot:
		n, err := r.restoreImage(ctx, true)
		if err != nil {
			return "", err
		}
		if n > 0 {
			return fmt.Sprintf("restored the %d keys the last experiment wrote", n), nil
		}
		return "restored the snapshot", nil
	case r.opts.Reset == ResetRepair:
		keys, ok := r.written()
		if !ok {
			return "", nil
		}
		db, done, err := r.openDriver(ctx, r.first)
		if err != nil {
			return "", err
		}
		defer done()
		if err := repair(ctx, db, r.table, r.first.Workload.(regenerator), keys); err != nil {
			return "", err
		}
		if len(keys) == 0 {
			return "left as loaded (the last experiment wrote nothing)", nil
		}
		return fmt.Sprintf("repaired the %d keys the last experiment wrote", len(keys)), nil
	}
	return "", nil
}

// takeSnapshot takes the image after the first load.
func (r *rater) takeSnapshot(ctx context.Context) error {
	if r.image {
		if err := r.standing.SaveImage(ctx, r.snapshotName()); err != nil {
			return fmt.Errorf("image %s of the %s cluster: %w", r.snapshotName(), r.standing.System(), err)
		}
		r.snapshot = true
		return nil
	}
	db, done, err := r.openDriver(ctx, r.first)
	if err != nil {
		return err
	}
	defer done()
	if err := db.(driver.Snapshotter).Snapshot(ctx, r.table, r.snapshotName()); err != nil {
		return fmt.Errorf("snapshot %s of %s: %w", r.snapshotName(), r.table, err)
	}
	r.snapshot = true
	if r.keyRestore {
		r.log = newKeyLog(r.logLimit()) // the data is the image: nothing to restore before the next experiment
	}
	return nil
}

// dropSnapshot removes the image when the rating ends.
func (r *rater) dropSnapshot(ctx context.Context) {
	if !r.snapshot {
		return
	}
	if r.image {
		if err := r.standing.DropImage(r.snapshotName()); err != nil {
			r.hooks.Warn(fmt.Errorf("drop image %s: %w", r.snapshotName(), err))
		}
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

// driftLimit is how much a kept data set may grow (inserts) before the next
// experiment starts from the original again: the seed's third rule.
const driftLimit = 0.10

// afterKeep applies the seed's correctness rules after an experiment under
// keep and sets why the next one may not keep the data ("" if it may):
// (1) no read of a deleted key: after deletes, (2) no insert of a key that
// exists: after failed inserts (their keys may or may not be there), (3) no
// drift: the record count moved more than driftLimit.
func (r *rater) afterKeep(sums []measure.Summary, unpredictable int64) {
	if r.opts.Reset != ResetKeep {
		return
	}
	var ins, insErr, del int64
	for _, s := range sums {
		if s.Phase != measure.PhaseWarmup && s.Phase != measure.PhaseMeasure {
			continue
		}
		for _, o := range s.Ops {
			switch o.Op {
			case "INSERT":
				ins += o.Count - o.Errors
				insErr += o.Errors
			case "DELETE":
				del += o.Count - o.Errors
			}
		}
	}
	r.inserted += ins
	switch {
	case unpredictable > 0:
		r.dirty = fmt.Sprintf("%d unpredictable (stale) reads were seen: the data may not be what was acknowledged", unpredictable)
	case del > 0:
		r.dirty = fmt.Sprintf("%d records were deleted: later reads of them would miss", del)
	case insErr > 0:
		r.dirty = fmt.Sprintf("%d inserts failed: the key sequence has holes", insErr)
	case r.records > 0 && float64(r.inserted) > driftLimit*float64(r.records):
		r.dirty = fmt.Sprintf("the data set grew by %d records (more than %.0f%% of %d)", r.inserted, driftLimit*100, r.records)
	}
}

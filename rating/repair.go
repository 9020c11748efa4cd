package rating

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/experiment"
)

// The repair strategy undoes exactly what the last experiment wrote: every
// key it updated, inserted or deleted (recorded by a keyLog in front of the
// driver, whatever the write's outcome) gets the record the load wrote
// (regenerated: with dataintegrity a YCSB value is a function of its key
// and field), and a key the load did not write (an experiment's insert) is
// deleted. It works through the driver interface, so for every driver that
// keeps its data between experiments. Its rules:
//
//   - the load is a run of its own (load only), so the log holds only the
//     experiments' writes;
//   - keys are recorded when a write starts, so a write that failed or timed
//     out (applied or not) is repaired too;
//   - when an experiment wrote more than half the records (at least
//     minRepairLimit), repairing costs about as much as loading: the log
//     overflows and the next experiment reloads instead, recorded as a
//     fallback (repair→reload) with the reason.
//
// With --reset snapshot, a driver.KeyRestorer (PostgreSQL) restores just the
// logged keys from the image the same way.

// regenerator is a workload whose loaded records can be computed again
// (ycsb.Workload with dataintegrity).
type regenerator interface {
	Originals(keys []string) (map[string]driver.Record, error)
}

// minRepairLimit is the least number of keys a log remembers.
const minRepairLimit = 1000

// repairWorkers write the originals back in parallel.
const repairWorkers = 8

// logLimit is how many written keys are worth repairing instead of
// reloading (or restoring the whole image).
func (r *rater) logLimit() int {
	return max(minRepairLimit, int(r.records/2))
}

// tracks tells whether the experiment of st must record what it writes.
func (r *rater) tracks(st *Step) bool {
	switch r.opts.Reset {
	case ResetRepair:
		return true
	case ResetSnapshot:
		return r.keyRestore && (st.Reset != resetLoad || r.snapshot) // the image may predate this experiment
	}
	return false
}

// wrapFor starts a log for the experiment of st (nil: nothing recorded).
func (r *rater) wrapFor(st *Step) func(driver.DB) driver.DB {
	if !r.tracks(st) {
		r.log = nil
		return nil
	}
	r.log = newKeyLog(r.logLimit())
	return r.log.wrap
}

// loadOnly stores the load as a run of its own (repair needs the
// experiments' writes apart from the load's).
func (r *rater) loadOnly(ctx context.Context, eo experiment.Options, recreate bool) error {
	lo := eo
	lo.LoadOnly, lo.SkipLoad, lo.Recreate = true, false, recreate || eo.Recreate
	lo.Name = eo.Name + " load"
	plan, err := experiment.Resolve(lo)
	if err != nil {
		return err
	}
	out, err := experiment.Execute(ctx, plan, experiment.Hooks{Warn: r.hooks.Warn, Observer: r.hooks.Observer, Store: r.store})
	if err != nil {
		if out != nil {
			return fmt.Errorf("load (run %d): %w", out.RunID, err)
		}
		return fmt.Errorf("load: %w", err)
	}
	return nil
}

// prepareRepair gets the data set of a repair step: the first loads in a
// run of its own, the later ones repair what the last experiment wrote (or
// reload when it wrote too much).
func (r *rater) prepareRepair(ctx context.Context, eo *experiment.Options, st *Step) error {
	if !r.loaded {
		st.Reset, r.loaded = resetLoad, true
		if !eo.SkipLoad {
			if err := r.loadOnly(ctx, *eo, false); err != nil {
				return err
			}
		}
		eo.SkipLoad, eo.Recreate = true, false
		return nil
	}
	eo.SkipLoad, eo.Recreate = true, false
	keys, ok := r.written()
	if !ok {
		st.Reset, st.Fallback = ResetReload, fmt.Sprintf("the last experiment wrote more than %d keys: reloading costs less than repairing", r.logLimit())
		return r.loadOnly(ctx, *eo, true)
	}
	st.Reset, st.Keys = ResetRepair, int64(len(keys))
	db, done, err := r.openDriver(ctx, r.first)
	if err != nil {
		return err
	}
	defer done()
	return repair(ctx, db, r.table, r.first.Workload.(regenerator), keys)
}

// written returns the keys the last experiment wrote; false when there is
// no log or it overflowed.
func (r *rater) written() ([]string, bool) {
	if r.log == nil {
		return nil, false
	}
	return r.log.written(r.table)
}

// repair writes back the originals of keys and deletes the keys the load
// did not write.
func repair(ctx context.Context, db driver.DB, table string, gen regenerator, keys []string) error {
	orig, err := gen.Originals(keys)
	if err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	jobs := make(chan string)
	errs := make([]error, repairWorkers)
	var wg sync.WaitGroup
	for w := range repairWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				if errs[w] != nil {
					continue
				}
				errs[w] = repairKey(ctx, db, table, k, orig[k])
			}
		}()
	}
	for _, k := range keys {
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("repair %d keys of %s: %w", len(keys), table, err)
	}
	return nil
}

// repairKey makes key's record rec again (nil: no record).
func repairKey(ctx context.Context, db driver.DB, table, key string, rec driver.Record) error {
	if rec == nil {
		if err := db.Delete(ctx, table, key); err != nil && !errors.Is(err, errclass.ErrNotFound) {
			return fmt.Errorf("delete %s: %w", key, err)
		}
		return nil
	}
	// A full record over every field: an update when the key is there, an
	// insert when the experiment deleted it.
	err := db.Update(ctx, table, key, rec)
	if errors.Is(err, errclass.ErrNotFound) {
		err = db.Insert(ctx, table, key, rec)
	}
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", key, err)
	}
	return nil
}

package experiment

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/results"
)

// Lost writes (verify: true): a tracker stands between the runner and the
// driver, remembers the last insert or delete the database acknowledged for
// every key, and after the run (after the last fault healed) reads every
// such key back: an acknowledged insert that is missing, or an
// acknowledged delete that came back, is a lost write (Jepsen's term).
//
// A key whose insert or delete failed is not judged (the write may or may
// not have been applied: its outcome is unknown), nor one that two clients
// wrote at once (the order the database applied them in is unknown); they
// are counted as uncertain. Memory: one map entry per written key, 47 bytes
// measured beyond the key's own bytes (a million YCSB keys: ~70 MB with
// them); nothing on disk but the counts.

// trackedDB is db behind tr (db itself when tr is nil).
func trackedDB(db driver.DB, tr *tracker) driver.DB {
	if tr == nil {
		return db
	}
	return tr.wrap()
}

// verifyTimeout bounds one read of the read-back: the run's operation
// timeout, at least 2 s.
func verifyTimeout(p *Plan) time.Duration {
	return max(p.Config.OpTimeout, 2*time.Second)
}

// writeState is what the database acknowledged last for a key.
type writeState uint8

const (
	ackInsert writeState = iota + 1
	ackDelete
	uncertainWrite
)

type trackKey struct{ table, key string }

type tracker struct {
	db       driver.DB
	mu       sync.Mutex
	last     map[trackKey]writeState // nil: writes are not tracked (only the timeline)
	inflight map[trackKey]int
	tl       *timeline // nil: no timeline
	pts      *pointLog // nil: points are not tracked (verifypoints.go)
}

func newTracker(db driver.DB) *tracker {
	t := &tracker{db: db, last: map[trackKey]writeState{}, inflight: map[trackKey]int{}}
	if _, ok := db.(driver.Points); ok {
		t.pts = newPointLog()
	}
	return t
}

// wrap returns the tracker as a driver.DB with the capabilities of the
// driver the runner and the workloads look for (batch inserts, intended
// starts, time series; a timeline needs every operation's intended start).
func (t *tracker) wrap() driver.DB {
	_, batch := t.db.(driver.BatchInserter)
	_, aware := t.db.(driver.ScheduleAware)
	aware = aware || t.tl != nil
	if _, ok := t.db.(driver.Points); ok {
		return t.wrapPoints(batch, aware)
	}
	switch {
	case batch && aware:
		return trackedBatchAware{trackedBatch{tracked{t}}}
	case batch:
		return trackedBatch{tracked{t}}
	case aware:
		return trackedAware{tracked{t}}
	}
	return tracked{t}
}

// begin notes a write of k starting; two at once make k uncertain.
func (t *tracker) begin(k trackKey) {
	if t.last == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inflight[k]++
	if t.inflight[k] > 1 {
		t.last[k] = uncertainWrite
	}
}

// end notes a write's outcome: acknowledged (err nil) or unknown.
func (t *tracker) end(k trackKey, s writeState, err error) {
	if t.last == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inflight[k]--
	if t.inflight[k] == 0 {
		delete(t.inflight, k)
	}
	switch {
	case t.last[k] == uncertainWrite:
	case err != nil:
		t.last[k] = uncertainWrite
	default:
		t.last[k] = s
	}
}

func (t *tracker) insert(ctx context.Context, table, key string, values driver.Record) error {
	k := trackKey{table, key}
	t.begin(k)
	err := t.tl.record(ctx, func() error { return t.db.Insert(ctx, table, key, values) })
	t.end(k, ackInsert, err)
	return err
}

func (t *tracker) delete(ctx context.Context, table, key string) error {
	k := trackKey{table, key}
	t.begin(k)
	err := t.tl.record(ctx, func() error { return t.db.Delete(ctx, table, key) })
	t.end(k, ackDelete, err)
	return err
}

func (t *tracker) insertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	for _, key := range keys {
		t.begin(trackKey{table, key})
	}
	err := t.tl.record(ctx, func() error { return t.db.(driver.BatchInserter).InsertBatch(ctx, table, keys, values) })
	for _, key := range keys {
		t.end(trackKey{table, key}, ackInsert, err)
	}
	return err
}

// verifyReads bounds the read-back: reads in parallel, tries per key.
const (
	verifyWorkers = 8
	verifyTries   = 3
)

// verify reads every judged key back and counts what was lost.
func (t *tracker) verify(ctx context.Context, timeout time.Duration) results.Verification {
	began := time.Now()
	if t.last == nil {
		return results.Verification{}
	}
	t.mu.Lock()
	keys := make(map[trackKey]writeState, len(t.last))
	for k, s := range t.last {
		keys[k] = s
	}
	t.mu.Unlock()
	var v results.Verification
	type job struct {
		k trackKey
		s writeState
	}
	jobs := make(chan job)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range verifyWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				found, err := t.readBack(ctx, j.k, timeout)
				mu.Lock()
				switch {
				case err != nil:
					v.Unreadable++
				case j.s == ackInsert && !found:
					v.LostInserts++
				case j.s == ackDelete && found:
					v.ResurrectedDeletes++
				}
				mu.Unlock()
			}
		}()
	}
	for k, s := range keys {
		switch s {
		case ackInsert:
			v.InsertsAcked++
		case ackDelete:
			v.DeletesAcked++
		default:
			v.Uncertain++
			continue
		}
		jobs <- job{k, s}
	}
	close(jobs)
	wg.Wait()
	t.verifyPoints(ctx, timeout, &v)
	v.TookMS = time.Since(began).Milliseconds()
	return v
}

// readBack tells whether key exists, trying again after errors other
// than not found (a cluster still settling after a heal).
func (t *tracker) readBack(ctx context.Context, k trackKey, timeout time.Duration) (bool, error) {
	var err error
	for try := 0; try < verifyTries; try++ {
		rctx, cancel := context.WithTimeout(ctx, timeout)
		_, err = t.db.Read(rctx, k.table, k.key, nil)
		cancel()
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, errclass.ErrNotFound):
			return false, nil
		case ctx.Err() != nil:
			return false, ctx.Err()
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false, err
}

type tracked struct{ t *tracker }

func (d tracked) Read(ctx context.Context, table, key string, fields []string) (rec driver.Record, err error) {
	err = d.t.tl.record(ctx, func() error { rec, err = d.t.db.Read(ctx, table, key, fields); return err })
	return rec, err
}

func (d tracked) Scan(ctx context.Context, table, startKey string, n int, fields []string) (recs []driver.Record, err error) {
	err = d.t.tl.record(ctx, func() error { recs, err = d.t.db.Scan(ctx, table, startKey, n, fields); return err })
	return recs, err
}

func (d tracked) Update(ctx context.Context, table, key string, values driver.Record) error {
	return d.t.tl.record(ctx, func() error { return d.t.db.Update(ctx, table, key, values) })
}

func (d tracked) Insert(ctx context.Context, table, key string, values driver.Record) error {
	return d.t.insert(ctx, table, key, values)
}

func (d tracked) Delete(ctx context.Context, table, key string) error {
	return d.t.delete(ctx, table, key)
}

// Close does nothing: the driver is closed by whoever opened it.
func (d tracked) Close() error { return nil }

type trackedBatch struct{ tracked }

func (d trackedBatch) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	return d.t.insertBatch(ctx, table, keys, values)
}

type trackedAware struct{ tracked }

func (trackedAware) WantsIntendedStart() {}

type trackedBatchAware struct{ trackedBatch }

func (trackedBatchAware) WantsIntendedStart() {}

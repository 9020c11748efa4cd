package run

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workload"
)

// fakeDB is a scripted in-memory driver.DB: every Read is one operation.
type fakeDB struct {
	service   time.Duration // time.Sleep per operation (0: none)
	stallAt   int64         // the stallAt-th operation (1-based) takes stall longer
	stall     time.Duration
	failEvery int64         // every failEvery-th operation fails as "unavailable"
	block     chan struct{} // if set, operations wait for it to close (or ctx)
	keepStart bool          // record every operation's start time

	calls atomic.Int64

	mu      sync.Mutex
	starts  []time.Time
	records map[string]driver.Record
}

func (db *fakeDB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	n := db.calls.Add(1)
	if db.keepStart {
		db.mu.Lock()
		db.starts = append(db.starts, time.Now())
		db.mu.Unlock()
	}
	if db.block != nil {
		select {
		case <-db.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if n == db.stallAt {
		time.Sleep(db.stall)
	}
	if db.service > 0 {
		time.Sleep(db.service)
	}
	if db.failEvery > 0 && n%db.failEvery == 0 {
		return nil, errclass.Wrap(errclass.Unavailable, fmt.Errorf("node %d down", n%3))
	}
	return nil, nil
}

func (db *fakeDB) Scan(context.Context, string, string, int, []string) ([]driver.Record, error) {
	return nil, nil
}
func (db *fakeDB) Update(context.Context, string, string, driver.Record) error { return nil }
func (db *fakeDB) Delete(context.Context, string, string) error                { return nil }
func (db *fakeDB) Close() error                                                { return nil }

func (db *fakeDB) Insert(_ context.Context, _, key string, values driver.Record) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.records == nil {
		db.records = make(map[string]driver.Record)
	}
	if _, dup := db.records[key]; dup {
		return fmt.Errorf("duplicate key %s", key)
	}
	db.records[key] = values
	return nil
}

// fakeWorkload reads one key per operation, alternating op READ and UPDATE
// so that several op types show up; Load inserts keys from a shared sequence.
type fakeWorkload struct {
	loadCount int64
	failLoad  int64 // Load fails once this many records are inserted (0: never)
	next      atomic.Int64
}

func (w *fakeWorkload) Ops() []string    { return []string{"READ", "UPDATE"} }
func (w *fakeWorkload) LoadCount() int64 { return w.loadCount }
func (w *fakeWorkload) NewClient(id int, seed int64) workload.Client {
	return &fakeClient{w: w}
}

type fakeClient struct {
	w *fakeWorkload
	k int
}

func (c *fakeClient) Load(ctx context.Context, db driver.DB, max int) (int, error) {
	n := 0
	for n < max {
		i := c.w.next.Add(1) - 1
		if i >= c.w.loadCount {
			break
		}
		if c.w.failLoad > 0 && i == c.w.failLoad {
			return n, fmt.Errorf("disk full")
		}
		if err := db.Insert(ctx, "t", "user"+strconv.FormatInt(i, 10), nil); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func (c *fakeClient) Do(ctx context.Context, db driver.DB) (int, error) {
	c.k ^= 1
	_, err := db.Read(ctx, "t", "user1", nil)
	return c.k, err
}

// recorder is an Observer keeping everything.
type recorder struct {
	ivs    []measure.Interval
	events []Event
}

func (r *recorder) Interval(iv measure.Interval) { r.ivs = append(r.ivs, iv) }
func (r *recorder) Event(e Event)                { r.events = append(r.events, e) }

func (r *recorder) event(kind, phase string) (Event, bool) {
	for _, e := range r.events {
		if e.Kind == kind && e.Name == phase {
			return e, true
		}
	}
	return Event{}, false
}

// intervalTotals sums an observer's intervals of one phase.
func (r *recorder) totals(phase string) (count, dropped int64) {
	for _, iv := range r.ivs {
		if iv.Phase != phase {
			continue
		}
		dropped += iv.Dropped
		for _, o := range iv.Ops {
			count += o.Count
		}
	}
	return count, dropped
}

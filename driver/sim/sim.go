// Package sim is a simulated store for validating dbrig itself (after
// SickStore): the data lives in memory, and every operation is delayed as a
// single FIFO server of known capacity would delay it, with a fixed extra
// latency and scheduled hiccups. Because the model is known, the latencies
// dbrig reports against sim can be checked against Model.Predict.
//
// An operation arrives at the simulated server at its intended start (the
// runner passes it, see driver.ScheduleAware), so a stall of dbrig's own
// scheduler is measured as latency but does not leave the server idle and
// grow the queue as an extra hiccup would.
//
// Properties (all optional):
//
//	sim.capacity  operations per second the server completes (0 = unlimited, no queue)
//	sim.latency   fixed time added to every operation, not occupying the server
//	sim.hiccups   START+DURATION,... from when the store is opened, e.g. 10s+1s,40s+500ms
package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// Property names.
const (
	PropCapacity = "sim.capacity"
	PropLatency  = "sim.latency"
	PropHiccups  = "sim.hiccups"
)

// DB is the simulated store. It is safe for concurrent use.
type DB struct {
	model   Model
	trivial bool      // model delays nothing: skip clock and lock
	origin  time.Time // hiccups are relative to it
	now     func() time.Time
	clock   waiter
	closed  atomic.Bool

	mu      sync.Mutex
	q       queue
	arrived time.Duration // last arrival admitted; arrivals reach the queue in order

	data *store
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.BatchInserter = (*DB)(nil)
	_ driver.Resetter      = (*DB)(nil)
	_ driver.Versioner     = (*DB)(nil)
	_ driver.Describer     = (*DB)(nil)
)

// Open reads the sim.* properties and opens an empty store whose hiccup
// clock starts now.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	m, err := ModelFromProps(cfg.Props)
	if err != nil {
		return nil, err
	}
	return New(m), nil
}

// ModelFromProps reads the sim.* properties; errors are *spec.PropError.
func ModelFromProps(p *spec.Props) (Model, error) {
	if p == nil {
		p = spec.NewProps()
	}
	var m Model
	var err error
	if m.Capacity, err = p.Float(PropCapacity, 0); err != nil {
		return Model{}, err
	}
	if m.Capacity < 0 || math.IsInf(m.Capacity, 0) || math.IsNaN(m.Capacity) {
		return Model{}, p.Errorf(PropCapacity, "a number of operations per second >= 0 (0 = unlimited)")
	}
	if m.Latency, err = p.Duration(PropLatency, 0); err != nil {
		return Model{}, err
	}
	if m.Latency < 0 {
		return Model{}, p.Errorf(PropLatency, "a duration >= 0")
	}
	if s := p.String(PropHiccups, ""); s != "" {
		if m.Hiccups, err = ParseHiccups(s); err != nil {
			return Model{}, p.Errorf(PropHiccups, `a comma-separated list of START+DURATION such as "10s+1s,40s+500ms" (%v)`, err)
		}
	}
	return m, nil
}

// New opens an empty store with model m; its origin (time zero of the
// hiccups) is now. Close releases its clock.
func New(m Model) *DB {
	var c waiter = &clock{} // never waited on
	if !m.trivial() {
		c = newClock()
	}
	return newDB(m, time.Now, c)
}

// waiter is what the store waits on: the clock (wait.go), or a test's
// virtual one.
type waiter interface {
	wait(ctx context.Context, t time.Time) error
	close() error
}

// newDB opens an empty store with model m on a clock: now and c.
func newDB(m Model, now func() time.Time, c waiter) *DB {
	m.Hiccups = normalize(m.Hiccups)
	return &DB{
		model:   m,
		trivial: m.trivial(),
		origin:  now(),
		now:     now,
		q:       newQueue(m),
		clock:   c,
		data:    newStore(),
	}
}

// Model returns the model the store runs.
func (db *DB) Model() Model { return db.model }

// Origin is the time the hiccups are relative to (when the store was opened).
// A validation that wants to predict its run passes arrival times relative to
// it to Model.Predict.
func (db *DB) Origin() time.Time { return db.origin }

// serve puts one operation through the queue model and waits until it is
// done. A caller whose ctx ends first gets a timeout (or the cancellation);
// its operation still occupied the server, as a request a client gave up on
// does in a real server, and its data change is not made.
func (db *DB) serve(ctx context.Context) error {
	if db.closed.Load() {
		return errClosed
	}
	if db.trivial {
		return nil
	}
	db.mu.Lock()
	// An operation arrives when the load schedule meant it to (if the runner
	// says so), not when the harness got round to it: a late harness must not
	// leave the simulated server idle. Its lateness still shows in the
	// response time dbrig measures, which runs from the intended start.
	// Arrivals reach the queue in non-decreasing order.
	t := db.now().Sub(db.origin)
	if it, ok := driver.IntendedStart(ctx); ok {
		t = min(t, it.Sub(db.origin))
	}
	t = max(t, db.arrived)
	db.arrived = t
	_, done := db.q.admit(t)
	db.mu.Unlock()
	if err := db.clock.wait(ctx, db.origin.Add(done)); err != nil {
		if errors.Is(err, errClosed) {
			return err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return errclass.Wrap(errclass.Timeout, fmt.Errorf("sim: %w", err))
		}
		return fmt.Errorf("sim: %w", err)
	}
	return nil
}

func notFound(table, key string) error {
	return fmt.Errorf("sim: %s/%s: %w", table, key, errclass.ErrNotFound)
}

// Read returns the selected fields (all when fields is nil).
func (db *DB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	if err := db.serve(ctx); err != nil {
		return nil, err
	}
	r, ok := db.data.read(table, key, fields)
	if !ok {
		return nil, notFound(table, key)
	}
	return r, nil
}

// Scan returns up to n records in key order from startKey on.
func (db *DB) Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]driver.Record, error) {
	if err := db.serve(ctx); err != nil {
		return nil, err
	}
	return db.data.scan(table, startKey, n, fields), nil
}

// Update merges values into an existing record.
func (db *DB) Update(ctx context.Context, table, key string, values driver.Record) error {
	if err := db.serve(ctx); err != nil {
		return err
	}
	if !db.data.update(table, key, values) {
		return notFound(table, key)
	}
	return nil
}

// Insert writes a record, replacing one that exists under key.
func (db *DB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	if err := db.serve(ctx); err != nil {
		return err
	}
	db.data.insert(table, key, values)
	return nil
}

// Delete removes a record.
func (db *DB) Delete(ctx context.Context, table, key string) error {
	if err := db.serve(ctx); err != nil {
		return err
	}
	if !db.data.delete(table, key) {
		return notFound(table, key)
	}
	return nil
}

// InsertBatch inserts the batch as one operation of the model: a batch is one
// request to the server, so a fast load is not throttled per record.
func (db *DB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	if len(keys) != len(values) {
		return fmt.Errorf("sim: InsertBatch: %d keys but %d records", len(keys), len(values))
	}
	if err := db.serve(ctx); err != nil {
		return err
	}
	for i, k := range keys {
		db.data.insert(table, k, values[i])
	}
	return nil
}

// Reset drops all data; the model and its clock are kept.
func (db *DB) Reset(ctx context.Context) error {
	db.data.reset()
	return nil
}

// WantsIntendedStart makes the runner pass each operation's intended start
// (driver.ScheduleAware), which serve takes as its arrival time.
func (db *DB) WantsIntendedStart() {}

// ServerVersion names the model, so a run's context tells which one it ran.
func (db *DB) ServerVersion(ctx context.Context) (string, error) {
	return db.model.String(), nil // the model is what distinguishes one sim from another
}

// Target describes the store.
func (db *DB) Target() string { return "sim (in memory)" }

// Close stops the clock; pending and later operations fail as unavailable.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	if err := db.clock.close(); err != nil {
		return fmt.Errorf("sim: close: %w", err)
	}
	return nil
}

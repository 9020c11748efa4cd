package rating

import (
	"context"
	"sync"

	"github.com/dbrig/dbrig/driver"
)

// keyLog records every key an experiment writes (update, insert, delete,
// whatever the outcome: a write that failed may still have been applied),
// so that only those records need to be put back: the repair strategy, and
// a snapshot restore of just those keys (driver.KeyRestorer). It stands
// between the runner and the driver (experiment.Hooks.WrapDB) and keeps
// the capabilities the runner looks for. Memory: one map entry per key
// written (the key's bytes plus ~50 bytes).
type keyLog struct {
	mu   sync.Mutex
	keys map[string]map[string]struct{} // table → keys
	// limit bounds the keys remembered; beyond it the log overflows and
	// the data set is restored in full (a repair would cost more).
	limit    int
	overflow bool
}

func newKeyLog(limit int) *keyLog {
	return &keyLog{keys: map[string]map[string]struct{}{}, limit: limit}
}

func (l *keyLog) note(table string, keys ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.overflow {
		return
	}
	m := l.keys[table]
	if m == nil {
		m = map[string]struct{}{}
		l.keys[table] = m
	}
	for _, k := range keys {
		m[k] = struct{}{}
	}
	if l.limit > 0 && len(m) > l.limit {
		l.overflow, l.keys = true, nil
	}
}

// written returns the keys written to table (nil, false after an overflow).
func (l *keyLog) written(table string) ([]string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.overflow {
		return nil, false
	}
	out := make([]string, 0, len(l.keys[table]))
	for k := range l.keys[table] {
		out = append(out, k)
	}
	return out, true
}

// wrap puts the log in front of db.
func (l *keyLog) wrap(db driver.DB) driver.DB {
	base := logged{db, l}
	_, batch := db.(driver.BatchInserter)
	_, aware := db.(driver.ScheduleAware)
	switch {
	case batch && aware:
		return loggedBatchAware{loggedBatch{base}}
	case batch:
		return loggedBatch{base}
	case aware:
		return loggedAware{base}
	}
	return base
}

type logged struct {
	driver.DB
	l *keyLog
}

func (d logged) Update(ctx context.Context, table, key string, values driver.Record) error {
	d.l.note(table, key)
	return d.DB.Update(ctx, table, key, values)
}

func (d logged) Insert(ctx context.Context, table, key string, values driver.Record) error {
	d.l.note(table, key)
	return d.DB.Insert(ctx, table, key, values)
}

func (d logged) Delete(ctx context.Context, table, key string) error {
	d.l.note(table, key)
	return d.DB.Delete(ctx, table, key)
}

type loggedBatch struct{ logged }

func (d loggedBatch) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	d.l.note(table, keys...)
	return d.DB.(driver.BatchInserter).InsertBatch(ctx, table, keys, values)
}

type loggedAware struct{ logged }

func (loggedAware) WantsIntendedStart() {}

type loggedBatchAware struct{ loggedBatch }

func (loggedBatchAware) WantsIntendedStart() {}

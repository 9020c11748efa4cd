package timeseries

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"sync"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
)

// memDB is an ordered in-memory key-value store for the generator tests:
// it keeps copies of what it is given and logs every call.
type memDB struct {
	mu    sync.Mutex
	data  map[string]driver.Record
	keys  []string // sorted, rebuilt lazily
	dirty bool
	log   []call
	batch bool // implements InsertBatch (see batchDB)
}

type call struct {
	op, key string
	n       int // scan length
	got     int // records a scan returned
}

func newMemDB() *memDB { return &memDB{data: map[string]driver.Record{}} }

func copyRec(r driver.Record) driver.Record {
	out := make(driver.Record, len(r))
	for k, v := range r {
		out[k] = append([]byte(nil), v...)
	}
	return out
}

func (m *memDB) Read(_ context.Context, table, key string, _ []string) (driver.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = append(m.log, call{op: "read", key: key})
	r, ok := m.data[key]
	if !ok {
		return nil, errclass.Wrap(errclass.NotFound, fmt.Errorf("%s: %w", key, errclass.ErrNotFound))
	}
	return maps.Clone(r), nil
}

func (m *memDB) Scan(_ context.Context, table, start string, n int, _ []string) ([]driver.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirty {
		m.keys = m.keys[:0]
		for k := range m.data {
			m.keys = append(m.keys, k)
		}
		sort.Strings(m.keys)
		m.dirty = false
	}
	i := sort.SearchStrings(m.keys, start)
	var out []driver.Record
	for ; i < len(m.keys) && len(out) < n; i++ {
		out = append(out, maps.Clone(m.data[m.keys[i]]))
	}
	m.log = append(m.log, call{op: "scan", key: start, n: n, got: len(out)})
	return out, nil
}

func (m *memDB) Update(_ context.Context, table, key string, v driver.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = append(m.log, call{op: "update", key: key})
	r, ok := m.data[key]
	if !ok {
		return errclass.Wrap(errclass.NotFound, fmt.Errorf("%s: %w", key, errclass.ErrNotFound))
	}
	maps.Copy(r, copyRec(v))
	return nil
}

func (m *memDB) Insert(_ context.Context, table, key string, v driver.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = append(m.log, call{op: "insert", key: key})
	if _, dup := m.data[key]; dup {
		return fmt.Errorf("duplicate key %s", key)
	}
	m.data[key] = copyRec(v)
	m.dirty = true
	return nil
}

func (m *memDB) Delete(_ context.Context, table, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = append(m.log, call{op: "delete", key: key})
	if _, ok := m.data[key]; !ok {
		return errclass.Wrap(errclass.NotFound, fmt.Errorf("%s: %w", key, errclass.ErrNotFound))
	}
	delete(m.data, key)
	m.dirty = true
	return nil
}

func (m *memDB) Close() error { return nil }

// batchDB adds InsertBatch to memDB.
type batchDB struct{ *memDB }

func (b batchDB) InsertBatch(ctx context.Context, table string, keys []string, vals []driver.Record) error {
	for i, k := range keys {
		if err := b.Insert(ctx, table, k, vals[i]); err != nil {
			return err
		}
	}
	return nil
}

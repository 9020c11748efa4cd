package ycsb

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// memDB is a map-based driver.DB for tests (not a database server). It copies
// what it is given, as the buffer contract asks of drivers.
type memDB struct {
	mu    sync.Mutex
	table string
	rows  map[string]driver.Record
	calls map[string]int
}

func newMemDB() *memDB {
	return &memDB{table: "usertable", rows: map[string]driver.Record{}, calls: map[string]int{}}
}

func (m *memDB) check(table string) error {
	if table != m.table {
		return fmt.Errorf("table %q, want %q", table, m.table)
	}
	return nil
}

func copyRecord(r driver.Record, fields []string) driver.Record {
	out := driver.Record{}
	for k, v := range r {
		if fields == nil || slices.Contains(fields, k) {
			out[k] = slices.Clone(v)
		}
	}
	return out
}

func (m *memDB) Read(_ context.Context, table, key string, fields []string) (driver.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls["read"]++
	if err := m.check(table); err != nil {
		return nil, err
	}
	r, ok := m.rows[key]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", key, errclass.ErrNotFound)
	}
	return copyRecord(r, fields), nil
}

func (m *memDB) Scan(_ context.Context, table, start string, n int, fields []string) ([]driver.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls["scan"]++
	keys := slices.Sorted(maps.Keys(m.rows))
	i, _ := slices.BinarySearch(keys, start)
	var out []driver.Record
	for ; i < len(keys) && len(out) < n; i++ {
		out = append(out, copyRecord(m.rows[keys[i]], fields))
	}
	return out, m.check(table)
}

func (m *memDB) Update(_ context.Context, table, key string, values driver.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls["update"]++
	r, ok := m.rows[key]
	if !ok {
		return fmt.Errorf("update %s: %w", key, errclass.ErrNotFound)
	}
	for k, v := range values {
		r[k] = slices.Clone(v)
	}
	return m.check(table)
}

func (m *memDB) Insert(_ context.Context, table, key string, values driver.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls["insert"]++
	return m.insert(table, key, values)
}

func (m *memDB) insert(table, key string, values driver.Record) error {
	if _, ok := m.rows[key]; ok {
		return fmt.Errorf("insert %s: duplicate key", key)
	}
	m.rows[key] = copyRecord(values, nil)
	return m.check(table)
}

func (m *memDB) Delete(_ context.Context, table, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls["delete"]++
	if _, ok := m.rows[key]; !ok {
		return fmt.Errorf("delete %s: %w", key, errclass.ErrNotFound)
	}
	delete(m.rows, key)
	return m.check(table)
}

func (m *memDB) Close() error { return nil }

// batchDB adds driver.BatchInserter.
type batchDB struct{ *memDB }

func (b batchDB) InsertBatch(_ context.Context, table string, keys []string, values []driver.Record) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls["batch"]++
	if len(keys) != len(values) {
		return fmt.Errorf("%d keys, %d values", len(keys), len(values))
	}
	for i, k := range keys {
		if err := b.insert(table, k, values[i]); err != nil {
			return err
		}
	}
	return nil
}

// spyDB does nothing but remember the last call's arguments.
type spyDB struct {
	key    string
	fields []string
	n      int
	values driver.Record
}

func (s *spyDB) Read(_ context.Context, _, key string, fields []string) (driver.Record, error) {
	s.key, s.fields = key, fields
	return nil, nil
}
func (s *spyDB) Scan(_ context.Context, _, key string, n int, fields []string) ([]driver.Record, error) {
	s.key, s.n, s.fields = key, n, fields
	return nil, nil
}
func (s *spyDB) Update(_ context.Context, _, key string, v driver.Record) error {
	s.key, s.values = key, v
	return nil
}
func (s *spyDB) Insert(_ context.Context, _, key string, v driver.Record) error {
	s.key, s.values = key, v
	return nil
}
func (s *spyDB) Delete(_ context.Context, _, key string) error { s.key = key; return nil }
func (s *spyDB) Close() error                                  { return nil }

// props builds properties from "key=value" lines.
func props(kv ...string) *spec.Props {
	p := spec.NewProps()
	if err := p.Load("test.properties", strings.NewReader(strings.Join(kv, "\n"))); err != nil {
		panic(err)
	}
	return p
}

// chiSquared tests counts against probabilities at significance 0.001 (bins
// with an expected count of 0 must have no observations and are skipped).
func chiSquared(observed []int64, pmf []float64) error {
	var total int64
	for _, o := range observed {
		total += o
	}
	var stat float64
	bins := 0
	for i, p := range pmf {
		e := p * float64(total)
		if e == 0 {
			if observed[i] != 0 {
				return fmt.Errorf("bin %d: %d observations, none expected", i, observed[i])
			}
			continue
		}
		d := float64(observed[i]) - e
		stat += d * d / e
		bins++
	}
	k := float64(bins - 1)
	c := 1 - 2/(9*k) + 3.0902*math.Sqrt(2/(9*k)) // Wilson–Hilferty, 0.999 quantile
	if crit := k * c * c * c; stat > crit {
		return fmt.Errorf("chi-squared %.1f > critical %.1f (df %v, p < 0.001)", stat, crit, k)
	}
	return nil
}

package experiment

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/results"
)

// Unpredictable (stale) reads: a StaleReads checker stands between the
// runner and the driver (Hooks.WrapDB). Every value it writes carries a
// version stamp in its first bytes ("~v" and 14 hex digits: '~' is never in
// a YCSB value), from one counter per run, so the version a read returns is
// in the value itself, whatever the driver or the system. Per key and
// field it keeps the newest version the database acknowledged; a read that
// returns an older version than one acknowledged before the read started
// is unpredictable (stale), and one that returns a version no write was
// given (or a damaged stamp) is wrong.
//
// Two writes of one field at once may be applied in either order, so their
// versions are not judged (nor counted as acknowledged): the check never
// calls a read stale that may be right. A value shorter than the stamp is
// not stamped. The stamp replaces the value's first 16 bytes, so a run
// with dataintegrity=true (which checks values) cannot use it.

// stampLen is the length of a version stamp.
const stampLen = 16

// StaleResult is what a StaleReads checker counted.
type StaleResult struct {
	Reads         int64 // reads that returned a record
	Checked       int64 // of them, reads of a field with an acknowledged write to compare with
	Unpredictable int64 // returned an older version than one acknowledged before the read
	Wrong         int64 // returned a version no writer wrote
}

// Metrics are the counts as a run's metrics (results.run_metrics).
func (r StaleResult) Metrics() []results.RunMetric {
	return []results.RunMetric{
		{Name: "unpredictable_reads", Value: float64(r.Unpredictable), Doc: "reads that returned an older value than one acknowledged before the read started (stale)"},
		{Name: "wrong_reads", Value: float64(r.Wrong), Doc: "reads that returned a value no writer wrote"},
		{Name: "reads_checked", Value: float64(r.Checked), Doc: "reads compared with an acknowledged write (version stamps)"},
		{Name: "reads_stamped", Value: float64(r.Reads), Doc: "reads that returned a record, while version stamps were on"},
	}
}

type fieldKey struct{ table, key, field string }

// fieldState is one field's write history as far as the check needs it.
type fieldState struct {
	acked    uint64 // newest version surely acknowledged
	inflight int    // writes under way
	overlap  bool   // two writes overlapped since inflight was last 0
}

// StaleReads counts unpredictable and wrong reads; make one per run
// (NewStaleReads).
type StaleReads struct {
	next          atomic.Uint64 // the last version given out
	mu            sync.Mutex
	fields        map[fieldKey]*fieldState
	names         map[string][]string // table → the field names written
	reads         atomic.Int64
	checked       atomic.Int64
	unpredictable atomic.Int64
	wrong         atomic.Int64
}

// NewStaleReads returns a checker with no history.
//
// Versions start at the current time in microseconds, so the stamps of an
// earlier run on the same data (a rating that keeps it) are older than any
// of this run's, and none is mistaken for one no writer wrote (as long as
// a run writes less than once per microsecond on average).
func NewStaleReads() *StaleReads {
	s := &StaleReads{fields: map[fieldKey]*fieldState{}, names: map[string][]string{}}
	s.next.Store(uint64(time.Now().UnixMicro()))
	return s
}

// Result returns the counts so far.
func (s *StaleReads) Result() StaleResult {
	return StaleResult{Reads: s.reads.Load(), Checked: s.checked.Load(), Unpredictable: s.unpredictable.Load(), Wrong: s.wrong.Load()}
}

// Wrap puts the checker in front of db, keeping the capabilities the
// runner looks for (batch inserts, intended starts).
func (s *StaleReads) Wrap(db driver.DB) driver.DB {
	base := stamped{db, s}
	_, batch := db.(driver.BatchInserter)
	_, aware := db.(driver.ScheduleAware)
	switch {
	case batch && aware:
		return stampedBatchAware{stampedBatch{base}}
	case batch:
		return stampedBatch{base}
	case aware:
		return stampedAware{base}
	}
	return base
}

// stamp copies values with version v in front of each (long enough) value.
func stamp(values driver.Record, v uint64) driver.Record {
	out := make(driver.Record, len(values))
	for f, b := range values {
		if len(b) < stampLen {
			out[f] = b
			continue
		}
		c := make([]byte, len(b))
		copy(c, b)
		c[0], c[1] = '~', 'v'
		h := strconv.AppendUint(nil, v, 16)
		for i := 2; i < stampLen; i++ {
			c[i] = '0'
		}
		copy(c[stampLen-len(h):stampLen], h)
		out[f] = c
		if len(h) > stampLen-2 {
			panic(fmt.Sprintf("version %d does not fit a stamp", v)) // 2^56 writes
		}
	}
	return out
}

// version reads a value's stamp: ok false without one, bad for a damaged one.
func version(b []byte) (v uint64, ok, bad bool) {
	if len(b) < stampLen || b[0] != '~' || b[1] != 'v' {
		return 0, false, false
	}
	v, err := strconv.ParseUint(string(b[2:stampLen]), 16, 64)
	if err != nil {
		return 0, true, true
	}
	return v, true, false
}

// begin notes writes of fields starting and gives them a version.
func (s *StaleReads) begin(table, key string, values driver.Record) uint64 {
	// The version is taken under the lock that registers the write: were it
	// taken before, a write with a smaller version could register (and be
	// applied) after a larger one had been acknowledged without overlap,
	// and every later read of its value would be called stale.
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.next.Add(1)
	for f, b := range values {
		if len(b) < stampLen {
			continue
		}
		st := s.fields[fieldKey{table, key, f}]
		if st == nil {
			st = &fieldState{}
			s.fields[fieldKey{table, key, f}] = st
			if !slices.Contains(s.names[table], f) {
				s.names[table] = append(s.names[table], f)
			}
		}
		if st.inflight > 0 {
			st.overlap = true
		}
		st.inflight++
	}
	return v
}

// end notes the writes' outcome: an acknowledged version becomes the one
// later reads must not fall behind, unless another write overlapped it.
func (s *StaleReads) end(table, key string, values driver.Record, v uint64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for f, b := range values {
		if len(b) < stampLen {
			continue
		}
		st := s.fields[fieldKey{table, key, f}]
		if err == nil && !st.overlap && v > st.acked {
			st.acked = v
		}
		st.inflight--
		if st.inflight == 0 {
			st.overlap = false
		}
	}
}

// judge compares what a read returned with what was acknowledged before it
// started (before: field → version).
func (s *StaleReads) judge(rec driver.Record, before func(field string) uint64) {
	s.reads.Add(1)
	issued := s.next.Load()
	checked, stale, wrong := false, false, false
	for f, b := range rec {
		v, ok, bad := version(b)
		switch {
		case bad || ok && v > issued:
			wrong = true
			continue
		case !ok:
			v = 0 // written before the checker: older than any stamp
		}
		if want := before(f); want > 0 {
			checked = true
			if v < want {
				stale = true
			}
		}
	}
	if checked {
		s.checked.Add(1)
	}
	if stale {
		s.unpredictable.Add(1)
	}
	if wrong {
		s.wrong.Add(1)
	}
}

type stamped struct {
	driver.DB
	s *StaleReads
}

func (d stamped) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	// What was acknowledged before the read started, per field asked for
	// (all: every field name written to the table).
	var before map[string]uint64
	d.s.mu.Lock()
	names := fields
	if names == nil {
		names = d.s.names[table]
	}
	before = make(map[string]uint64, len(names))
	for _, f := range names {
		if st := d.s.fields[fieldKey{table, key, f}]; st != nil && st.acked > 0 {
			before[f] = st.acked
		}
	}
	d.s.mu.Unlock()
	rec, err := d.DB.Read(ctx, table, key, fields)
	if err == nil && len(rec) > 0 {
		d.s.judge(rec, func(f string) uint64 { return before[f] })
	}
	return rec, err
}

func (d stamped) Update(ctx context.Context, table, key string, values driver.Record) error {
	v := d.s.begin(table, key, values)
	err := d.DB.Update(ctx, table, key, stamp(values, v))
	d.s.end(table, key, values, v, err)
	return err
}

func (d stamped) Insert(ctx context.Context, table, key string, values driver.Record) error {
	v := d.s.begin(table, key, values)
	err := d.DB.Insert(ctx, table, key, stamp(values, v))
	d.s.end(table, key, values, v, err)
	return err
}

type stampedBatch struct{ stamped }

func (d stampedBatch) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	vs := make([]uint64, len(keys))
	out := make([]driver.Record, len(keys))
	for i, k := range keys {
		vs[i] = d.s.begin(table, k, values[i])
		out[i] = stamp(values[i], vs[i])
	}
	err := d.DB.(driver.BatchInserter).InsertBatch(ctx, table, keys, out)
	for i, k := range keys {
		d.s.end(table, k, values[i], vs[i], err)
	}
	return err
}

type stampedAware struct{ stamped }

func (stampedAware) WantsIntendedStart() {}

type stampedBatchAware struct{ stampedBatch }

func (stampedBatchAware) WantsIntendedStart() {}

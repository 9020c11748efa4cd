package results

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// TimedOp is one operation of a run's timeline.
type TimedOp struct {
	StartUS   int64 // intended start, µs since the run's start
	LatencyUS int64 // response time (from the intended start)
	OK        bool  // succeeded (or failed by the workload's own doing: a missing key, a lost compare-and-swap)
}

// EndUS is when the operation ended, µs since the run's start.
func (o TimedOp) EndUS() int64 { return o.StartUS + o.LatencyUS }

// EncodeTimeline packs ops (sorted by start first) as varints: the start as
// a delta from the previous op's, the latency, then 1 for success.
func EncodeTimeline(ops []TimedOp) []byte {
	sort.Slice(ops, func(i, j int) bool { return ops[i].StartUS < ops[j].StartUS })
	out := make([]byte, 0, len(ops)*6)
	prev := int64(0)
	for _, o := range ops {
		out = binary.AppendVarint(out, o.StartUS-prev)
		out = binary.AppendUvarint(out, uint64(max(o.LatencyUS, 0)))
		ok := byte(0)
		if o.OK {
			ok = 1
		}
		out = append(out, ok)
		prev = o.StartUS
	}
	return out
}

// ErrBadTimeline is wrapped by DecodeTimeline for data it cannot read.
var ErrBadTimeline = errors.New("malformed timeline")

// DecodeTimeline reads what EncodeTimeline wrote.
func DecodeTimeline(b []byte) ([]TimedOp, error) {
	var out []TimedOp
	prev := int64(0)
	for len(b) > 0 {
		d, n := binary.Varint(b)
		if n <= 0 {
			return nil, fmt.Errorf("%w: start of op %d", ErrBadTimeline, len(out))
		}
		b = b[n:]
		lat, m := binary.Uvarint(b)
		if m <= 0 || lat > 1<<62 || len(b) < m+1 || b[m] > 1 {
			return nil, fmt.Errorf("%w: op %d", ErrBadTimeline, len(out))
		}
		prev += d
		out = append(out, TimedOp{StartUS: prev, LatencyUS: int64(lat), OK: b[m] == 1})
		b = b[m+1:]
	}
	return out, nil
}

// AddTimeline stores a run's per-operation timeline.
func (s *Store) AddTimeline(ctx context.Context, runID int64, ops []TimedOp) error {
	data := EncodeTimeline(ops)
	err := s.tx(ctx, func(t *txn) error {
		return t.exec(ctx, `INSERT INTO timelines (run_id, ops, data) VALUES (?, ?, ?)`, runID, len(ops), data)
	})
	if err != nil {
		return fmt.Errorf("add timeline to run %d: %w", runID, err)
	}
	return nil
}

// Timeline returns a run's per-operation timeline (nil: none stored).
func (s *Store) Timeline(ctx context.Context, runID int64) ([]TimedOp, error) {
	var data []byte
	err := s.queryRow(ctx, `SELECT data FROM timelines WHERE run_id = ?`, runID).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("timeline of run %d: %w", runID, err)
	}
	ops, err := DecodeTimeline(data)
	if err != nil {
		return nil, fmt.Errorf("timeline of run %d: %w", runID, err)
	}
	return ops, nil
}

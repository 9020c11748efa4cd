package gen

import (
	"errors"
	"math/rand/v2"
	"sync/atomic"
)

// ackWindow is how many handed-out values may be unacknowledged at once
// (YCSB's AcknowledgedCounterGenerator.WINDOW_SIZE, 2^20).
const ackWindow = 1 << 20

// ErrAckWindow is returned by Acknowledge when more than 2^20 values are
// outstanding (YCSB: "Too many unacknowledged insertion keys.").
var ErrAckWindow = errors.New("too many unacknowledged insertion keys (more than 2^20 inserts in flight)")

// AckCounter hands out increasing values to concurrent inserters and reports
// through Last the highest value below which every value has been
// acknowledged (YCSB's AcknowledgedCounterGenerator). Readers choosing keys
// with Last never see a key whose insert has not finished.
//
// It is lock-free: a bitmap of acknowledged values and a try-lock flag. The
// caller that wins the flag moves Last over the contiguous acknowledged run;
// the others just set their bit. Unlike YCSB, the winner checks again after
// releasing the flag, so an acknowledgement that arrives meanwhile is not left
// waiting for the next one.
type AckCounter struct {
	next   atomic.Int64
	limit  atomic.Int64
	busy   atomic.Bool
	window []atomic.Uint64 // bit i%ackWindow: value i acknowledged
}

// NewAckCounter returns a counter whose first value is start; Last is start-1
// until start is acknowledged.
func NewAckCounter(start int64) *AckCounter {
	c := &AckCounter{window: make([]atomic.Uint64, ackWindow/64)}
	c.next.Store(start)
	c.limit.Store(start - 1)
	return c
}

// Next hands out the next value; safe for concurrent use.
func (c *AckCounter) Next() int64 { return c.next.Add(1) - 1 }

// Last returns the highest value v such that every value <= v was acknowledged.
func (c *AckCounter) Last() int64 { return c.limit.Load() }

func (c *AckCounter) bit(v int64) (word *atomic.Uint64, mask uint64) {
	slot := uint64(v) & (ackWindow - 1)
	return &c.window[slot/64], 1 << (slot % 64)
}

// Acknowledge marks v (a value from Next) as done, whether its insert
// succeeded or not, as YCSB does.
func (c *AckCounter) Acknowledge(v int64) error {
	w, m := c.bit(v)
	if w.Or(m)&m != 0 {
		return ErrAckWindow
	}
	for c.busy.CompareAndSwap(false, true) {
		i := c.limit.Load() + 1
		for n := 0; n < ackWindow; n++ {
			w, m := c.bit(i)
			if w.Load()&m == 0 {
				break
			}
			w.And(^m)
			i++
		}
		c.limit.Store(i - 1)
		c.busy.Store(false)
		// Someone may have set the next bit while we held the flag and given
		// up on it; if so, go round again.
		if w, m := c.bit(i); w.Load()&m == 0 {
			return nil
		}
	}
	return nil
}

// SkewedLatest favours the most recently acknowledged values: it returns
// Last − zipfian(Last) (YCSB's SkewedLatestGenerator), so with Last = L it
// yields values in [1, L], L being the most popular.
type SkewedLatest struct {
	basis *AckCounter
	z     *Zipfian
}

// NewSkewedLatest returns a generator driven by basis with zipfian constant
// theta (YCSB: 0.99).
func NewSkewedLatest(r *rand.Rand, basis *AckCounter, theta float64) (*SkewedLatest, error) {
	z, err := NewZipfian(r, max(basis.Last(), 1), theta)
	if err != nil {
		return nil, err
	}
	return &SkewedLatest{basis: basis, z: z}, nil
}

// Next returns the next value.
func (s *SkewedLatest) Next() int64 {
	last := s.basis.Last()
	return last - s.z.NextN(last)
}

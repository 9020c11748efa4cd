// Package gen ports YCSB's number generators (site.ycsb.generator): uniform,
// zipfian, scrambled zipfian, skewed latest, hotspot, sequential, exponential,
// constant, counters and a discrete chooser.
//
// Every random generator draws from the *rand.Rand it was built with, so a run
// is reproducible from its seeds; there is no global source. A generator that
// owns a *rand.Rand is for one goroutine. The counters (Counter, Sequential,
// AckCounter) are atomic and meant to be shared by all clients, as YCSB shares
// them between threads.
//
// Where this port deviates from YCSB on purpose, the comment says so.
package gen

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
)

// Int64 produces a sequence of integers.
type Int64 interface {
	Next() int64
}

// Constant always returns the same value (YCSB's ConstantIntegerGenerator).
type Constant int64

// Next returns c.
func (c Constant) Next() int64 { return int64(c) }

// Uniform returns integers uniformly distributed in [min, max]
// (YCSB's UniformLongGenerator).
type Uniform struct {
	r      *rand.Rand
	min, n int64
}

// NewUniform returns a generator over [min, max], both inclusive.
func NewUniform(r *rand.Rand, min, max int64) (*Uniform, error) {
	if max < min {
		return nil, fmt.Errorf("uniform: max %d < min %d", max, min)
	}
	if max-min+1 <= 0 {
		return nil, fmt.Errorf("uniform: range [%d, %d] is too large", min, max)
	}
	return &Uniform{r: r, min: min, n: max - min + 1}, nil
}

// Next returns the next value. Unlike YCSB (abs(nextLong) % n) it has no
// modulo bias.
func (u *Uniform) Next() int64 { return u.min + u.r.Int64N(u.n) }

// Counter hands out start, start+1, ... to concurrent callers
// (YCSB's CounterGenerator; the load phase's key sequence).
type Counter struct{ next atomic.Int64 }

// NewCounter returns a counter whose first value is start.
func NewCounter(start int64) *Counter {
	c := &Counter{}
	c.next.Store(start)
	return c
}

// Next returns the next value; safe for concurrent use.
func (c *Counter) Next() int64 { return c.next.Add(1) - 1 }

// Claim reserves up to n consecutive values below end and returns the first
// and how many it got (0 when the sequence has reached end). It lets a loader
// take a batch of keys with one atomic operation.
func (c *Counter) Claim(n, end int64) (first, got int64) {
	if n <= 0 {
		return 0, 0
	}
	first = c.next.Add(n) - n
	if first >= end {
		return first, 0
	}
	return first, min(n, end-first)
}

// Sequential cycles through [min, max] in order; one instance shared by all
// clients walks the range once between them, as YCSB's SequentialGenerator.
type Sequential struct {
	min, n  int64
	counter atomic.Int64
}

// NewSequential returns a generator over [min, max], both inclusive.
func NewSequential(min, max int64) (*Sequential, error) {
	if max < min {
		return nil, fmt.Errorf("sequential: max %d < min %d", max, min)
	}
	return &Sequential{min: min, n: max - min + 1}, nil
}

// Next returns the next value; safe for concurrent use.
func (s *Sequential) Next() int64 { return s.min + (s.counter.Add(1)-1)%s.n }

// Discrete chooses an index with probability proportional to its weight
// (YCSB's DiscreteGenerator, which CoreWorkload uses to pick operations).
type Discrete struct {
	r    *rand.Rand
	cum  []float64 // cumulative weights
	sum  float64
	last int // last index with a positive weight
}

// NewDiscrete returns a chooser over len(weights) indexes. Weights must be
// finite and >= 0 with a positive sum; an index with weight 0 is never chosen.
func NewDiscrete(r *rand.Rand, weights []float64) (*Discrete, error) {
	d := &Discrete{r: r, cum: make([]float64, len(weights)), last: -1}
	for i, w := range weights {
		if !(w >= 0) || w > 1e300 {
			return nil, fmt.Errorf("discrete: weight %d is %v, expected a finite number >= 0", i, w)
		}
		d.sum += w
		d.cum[i] = d.sum
		if w > 0 {
			d.last = i
		}
	}
	if d.last < 0 {
		return nil, errors.New("discrete: all weights are zero")
	}
	return d, nil
}

// Next returns the chosen index.
func (d *Discrete) Next() int {
	u := d.r.Float64() * d.sum
	for i, c := range d.cum {
		if u < c {
			return i
		}
	}
	return d.last // only reachable through rounding at the very top
}

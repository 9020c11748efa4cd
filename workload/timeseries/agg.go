package timeseries

import (
	"math"
	"strings"
)

// aggFuncs are the aggregation functions a group-by or downsampling may
// name (case-insensitive): what InfluxQL, PromQL and SQL all have.
var aggFuncs = []string{"sum", "avg", "min", "max", "count"}

// aggFunc returns the canonical name of an aggregation function and
// whether it is one of aggFuncs.
func aggFunc(name string) (string, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "mean" {
		n = "avg"
	}
	for _, f := range aggFuncs {
		if n == f {
			return f, true
		}
	}
	return "", false
}

// acc folds values of one bucket.
type acc struct {
	n             int64
	sum, min, max float64
}

func (a *acc) add(v float64) {
	if a.n == 0 || v < a.min {
		a.min = v
	}
	if a.n == 0 || v > a.max {
		a.max = v
	}
	a.n++
	a.sum += v
}

// result is the bucket's value under fn (NaN for an empty bucket but count).
func (a *acc) result(fn string) float64 {
	if fn == "count" {
		return float64(a.n)
	}
	if a.n == 0 {
		return math.NaN()
	}
	switch fn {
	case "sum":
		return a.sum
	case "avg":
		return a.sum / float64(a.n)
	case "min":
		return a.min
	case "max":
		return a.max
	}
	return math.NaN()
}

// buckets aggregates points into time buckets of width step (0: one bucket)
// starting at from; the client reuses it between operations.
type buckets struct {
	from, step int64
	accs       []acc
}

func (b *buckets) reset(from, to, step int64) {
	b.from, b.step = from, step
	n := 1
	if step > 0 && to >= from {
		n = int((to-from)/step) + 1
	}
	if cap(b.accs) < n {
		b.accs = make([]acc, n)
	}
	b.accs = b.accs[:n]
	clear(b.accs)
}

func (b *buckets) add(ts int64, v float64) {
	i := 0
	if b.step > 0 {
		i = int((ts - b.from) / b.step)
	}
	if i >= 0 && i < len(b.accs) {
		b.accs[i].add(v)
	}
}

// fold returns the aggregated values (the work a database would do),
// summed so that nothing is optimised away.
func (b *buckets) fold(fn string) float64 {
	var s float64
	for i := range b.accs {
		if r := b.accs[i].result(fn); !math.IsNaN(r) {
			s += r
		}
	}
	return s
}

package measure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The figures StatsOf reports are checked against a reference computed
// independently of HdrHistogram: the nearest-rank percentile of the sorted
// values (the smallest value with at least q% of all values at or below it).
// A planted bug that reported the 98th percentile as p99 passed every other
// test; this one catches such bugs.

// percentileDatasets are the value sets (µs) the reference tests record.
func percentileDatasets() map[string][]int64 {
	rng := rand.New(rand.NewPCG(7, 11))
	uniform := make([]int64, 100000)
	for i := range uniform {
		uniform[i] = int64(i + 1)
	}
	rng.Shuffle(len(uniform), func(i, j int) { uniform[i], uniform[j] = uniform[j], uniform[i] })

	// Skewed: log-normal around 300 µs, a heavy right side.
	skewed := make([]int64, 100003)
	for i := range skewed {
		skewed[i] = max(1, int64(math.Exp(5.7+0.9*rng.NormFloat64())))
	}

	// Bimodal with a long tail: a fast mode (cache hits), a slow mode (disk)
	// and a Pareto tail of stalls reaching seconds.
	bimodal := make([]int64, 54321)
	for i := range bimodal {
		switch u := rng.Float64(); {
		case u < 0.89:
			bimodal[i] = max(1, int64(200+20*rng.NormFloat64()))
		case u < 0.995:
			bimodal[i] = max(1, int64(8000+1500*rng.NormFloat64()))
		default:
			bimodal[i] = min(HistMaxUS, int64(50000/math.Pow(1-rng.Float64(), 1/1.2)))
		}
	}
	return map[string][]int64{
		"uniform 1..100000": uniform,
		"skewed":            skewed,
		"bimodal tail":      bimodal,
		"n=1":               {4321},
		"n=2":               {10, 1000},
		"n=7":               {5, 17, 100, 1000, 1500, 30000, 2000000},
		"n=7 equal":         {250, 250, 250, 250, 250, 250, 250},
		"n=10":              {1, 2, 3, 4, 5, 6, 7, 8, 9, 10000},
		"n=1001":            sequence(1001, 1000),
	}
}

// sequence returns n values step apart, starting at step.
func sequence(n int, step int64) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i+1) * step
	}
	return s
}

// referenceStats computes Stats from the values themselves: exact count,
// min, max and mean, and nearest-rank percentiles (rank ⌈q·n⌉, in integers
// so no rounding can shift a rank).
func referenceStats(vals []int64) Stats {
	s := slices.Clone(vals)
	slices.Sort(s)
	n := int64(len(s))
	rank := func(num, den int64) int64 { // the value of rank ⌈num/den · n⌉, 1-based
		r := max(1, (num*n+den-1)/den)
		return s[r-1]
	}
	var sum float64
	for _, v := range s {
		sum += float64(v)
	}
	return Stats{
		Count: n, Mean: sum / float64(n), Min: s[0], Max: s[n-1],
		P50: rank(50, 100), P90: rank(90, 100), P95: rank(95, 100), P99: rank(99, 100),
		P999: rank(999, 1000), P9999: rank(9999, 10000),
	}
}

// checkStats compares got with the reference within HDR's precision: three
// significant digits, so a relative error of at most 0.1% plus one unit.
func checkStats(t *testing.T, got, want Stats) {
	t.Helper()
	near := func(g, w float64) bool { return math.Abs(g-w) <= 0.001*math.Abs(w)+1 }
	if got.Count != want.Count {
		t.Errorf("Count = %d, want %d", got.Count, want.Count)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"Mean", got.Mean, want.Mean},
		{"Min", float64(got.Min), float64(want.Min)},
		{"P50", float64(got.P50), float64(want.P50)},
		{"P90", float64(got.P90), float64(want.P90)},
		{"P95", float64(got.P95), float64(want.P95)},
		{"P99", float64(got.P99), float64(want.P99)},
		{"P999", float64(got.P999), float64(want.P999)},
		{"P9999", float64(got.P9999), float64(want.P9999)},
		{"Max", float64(got.Max), float64(want.Max)},
	} {
		if !near(f.got, f.want) {
			t.Errorf("%s = %v, want %v (nearest rank of the sorted values, ±0.1%% + 1)", f.name, f.got, f.want)
		}
	}
}

func TestStatsOfMatchesSortedReference(t *testing.T) {
	for name, vals := range percentileDatasets() {
		t.Run(name, func(t *testing.T) {
			h := NewHistogram()
			for _, v := range vals {
				if err := h.RecordValue(v); err != nil {
					t.Fatal(err)
				}
			}
			checkStats(t, StatsOf(h), referenceStats(vals))
		})
	}
}

// The path a run takes: operations recorded in shards, cut into intervals
// every second, merged per phase by the Accumulator, per op and OVERALL.
func TestSummaryPercentilesMatchSortedReference(t *testing.T) {
	for name, vals := range percentileDatasets() {
		t.Run(name, func(t *testing.T) {
			r := NewRecorder([]string{"READ", "UPDATE"})
			shards := []*Shard{r.Shard(), r.Shard(), r.Shard()}
			r.SetStart(t0)
			var ivs []Interval
			var reads, updates []int64
			const seconds = 4
			for i, v := range vals {
				op := Op(i % 3 / 2) // two thirds READ, one third UPDATE
				if op == 0 {
					reads = append(reads, v)
				} else {
					updates = append(updates, v)
				}
				// The intended start precedes the actual one: response time is v,
				// service time v/2.
				shards[i%len(shards)].Record(op, t0, t0.Add(us(v-v/2)), t0.Add(us(v)), nil)
				if (i+1)%max(1, len(vals)/seconds) == 0 || i == len(vals)-1 {
					ivs = append(ivs, r.Cut(PhaseMeasure, t0.Add(time.Duration(len(ivs)+1)*time.Second)))
				}
			}
			sum := Summarize(PhaseMeasure, ivs, nil)
			byOp := map[string][]int64{"READ": reads, "UPDATE": updates}
			for _, o := range sum.Ops {
				t.Run(o.Op, func(t *testing.T) { checkStats(t, o.Response, referenceStats(byOp[o.Op])) })
			}
			if want := countNonEmpty(reads, updates); len(sum.Ops) != want {
				t.Errorf("%d ops summarized, want %d", len(sum.Ops), want)
			}
			t.Run("OVERALL", func(t *testing.T) { checkStats(t, sum.Overall.Response, referenceStats(vals)) })
			t.Run("OVERALL service", func(t *testing.T) {
				half := make([]int64, len(vals))
				for i, v := range vals {
					half[i] = v / 2
				}
				checkStats(t, sum.Overall.Service, referenceStats(half))
			})
		})
	}
}

func countNonEmpty(sets ...[]int64) int {
	n := 0
	for _, s := range sets {
		if len(s) > 0 {
			n++
		}
	}
	return n
}

// Percentile is the single-figure form of StatsOf's percentiles.
func TestPercentileMatchesStatsOf(t *testing.T) {
	vals := percentileDatasets()["bimodal tail"]
	h := NewHistogram()
	for _, v := range vals {
		_ = h.RecordValue(v)
	}
	s := StatsOf(h)
	for q, want := range map[float64]int64{50: s.P50, 90: s.P90, 95: s.P95, 99: s.P99, 99.9: s.P999, 99.99: s.P9999, 100: s.Max} {
		if got := Percentile(h, q); got != want {
			t.Errorf("Percentile(%v) = %d, want %d", q, got, want)
		}
	}
	if got := Percentile(nil, 99); got != 0 {
		t.Errorf("Percentile(nil) = %d, want 0", got)
	}
	if got, want := fmt.Sprint(Percentile(NewHistogram(), 50)), "0"; got != want {
		t.Errorf("Percentile(empty) = %s, want %s", got, want)
	}
}

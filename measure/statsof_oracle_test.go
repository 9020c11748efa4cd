package measure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// oracleStatsOf is StatsOf as it was before the one-pass walk (hdrhistogram-go's
// Mean, Min, Max and ValueAtPercentiles, each walking the counters), kept
// verbatim as the oracle the walk must agree with exactly.
func oracleStatsOf(h *hdr.Histogram) Stats {
	if h == nil || h.TotalCount() == 0 {
		return Stats{}
	}
	p := oraclePercentiles(h, 50, 90, 95, 99, 99.9, 99.99)
	return Stats{
		Count: h.TotalCount(),
		Mean:  h.Mean(),
		Min:   h.Min(),
		P50:   p[0],
		P90:   p[1],
		P95:   p[2],
		P99:   p[3],
		P999:  p[4],
		P9999: p[5],
		Max:   h.Max(),
	}
}

func oraclePercentiles(h *hdr.Histogram, qs ...float64) []int64 {
	n := float64(h.TotalCount())
	asked := make([]float64, len(qs))
	for i, q := range qs {
		q = min(max(q, 0), 100)
		rank := max(1, math.Ceil(q/100*n*(1-1e-13)))
		asked[i] = (rank - 0.25) / n * 100
	}
	at := h.ValueAtPercentiles(slices.Clone(asked))
	out := make([]int64, len(qs))
	for i, a := range asked {
		out[i] = at[a]
	}
	return out
}

// oracleHistograms are the histograms StatsOf is checked on: empty, one
// value, the edges of the range, other ranges and precisions (as a decoded
// histogram may have), huge counts, and many random shapes.
func oracleHistograms(t testing.TB) map[string]*hdr.Histogram {
	t.Helper()
	out := map[string]*hdr.Histogram{}
	add := func(name string, h *hdr.Histogram, vals ...int64) {
		for _, v := range vals {
			if err := h.RecordValue(v); err != nil {
				t.Fatalf("%s: record %d: %v", name, v, err)
			}
		}
		out[name] = h
	}
	add("empty", NewHistogram())
	add("one value", NewHistogram(), 4321)
	add("one zero", NewHistogram(), 0)
	add("zero and max", NewHistogram(), 0, HistMaxUS)
	add("min of range", NewHistogram(), HistMinUS)
	add("max of range", NewHistogram(), HistMaxUS)
	add("whole range", NewHistogram(), HistMinUS, 2047, 2048, 2049, 4095, 4096, 1e6, HistMaxUS)
	add("equal", NewHistogram(), 250, 250, 250, 250, 250, 250, 250)
	add("huge range 1..2^62", hdr.New(1, 1<<62, 3), 1, 1<<20, 1<<40, 1<<61, 1<<62-1)
	add("max int64 range", hdr.New(1, math.MaxInt64, 2), 1, math.MaxInt64/3, math.MaxInt64/2)
	add("ns unit 1000", hdr.New(1000, 3_600_000_000_000, 3), 999, 1000, 1_500_000, 3_000_000_000, 3_600_000_000_000)
	add("1 digit", hdr.New(1, 1e9, 1), 1, 7, 19, 21, 1e6, 1e9)
	add("5 digits", hdr.New(1, 1e9, 5), 1, 99999, 100001, 123456789)
	for name, vals := range percentileDatasets() {
		add("dataset "+name, NewHistogram(), vals...)
	}
	big := NewHistogram()
	for _, v := range []int64{1, 300, 70000, HistMaxUS} {
		if err := big.RecordValues(v, 1<<50); err != nil {
			t.Fatal(err)
		}
	}
	out["counts of 2^50"] = big

	rng := rand.New(rand.NewPCG(2026, 11))
	for i := range 300 {
		h := NewHistogram()
		n := 1 + rng.IntN(1+rng.IntN(5000))
		top := max(int64(1), int64(math.Pow(float64(HistMaxUS), rng.Float64())))
		for range n {
			v := rng.Int64N(top + 1)
			if rng.IntN(10) == 0 {
				v = int64(math.Exp(rng.Float64() * math.Log(float64(HistMaxUS))))
			}
			if err := h.RecordValues(v, 1+rng.Int64N(1+rng.Int64N(1000))); err != nil {
				t.Fatal(err)
			}
		}
		out[fmt.Sprintf("random %03d", i)] = h
	}
	return out
}

// StatsOf's one walk must give exactly what hdrhistogram-go's separate walks
// gave, field by field (no tolerance).
func TestStatsOfEqualsOracle(t *testing.T) {
	for name, h := range oracleHistograms(t) {
		got, want := StatsOf(h), oracleStatsOf(h)
		if got != want {
			t.Errorf("%s: StatsOf = %+v\n  oracle  = %+v", name, got, want)
		}
		for _, q := range []float64{-1, 0, 1e-9, 0.1, 25, 50, 75, 99.5, 99.999, 99.99999, 100, 101} {
			if h.TotalCount() == 0 {
				continue
			}
			if got, want := Percentile(h, q), oraclePercentiles(h, q)[0]; got != want {
				t.Errorf("%s: Percentile(%v) = %d, oracle %d", name, q, got, want)
			}
		}
	}
	if got := StatsOf(nil); got != (Stats{}) {
		t.Errorf("StatsOf(nil) = %+v", got)
	}
}

// The oracle must itself see a difference: a histogram one count off gives
// other figures, so the equality above is not vacuous.
func TestStatsOfOracleDiscriminates(t *testing.T) {
	a, b := NewHistogram(), NewHistogram()
	for v := int64(1); v <= 1000; v++ {
		_ = a.RecordValue(v)
		_ = b.RecordValue(v)
	}
	_ = b.RecordValue(5000)
	if StatsOf(a) == oracleStatsOf(b) {
		t.Fatal("different histograms give equal Stats")
	}
}

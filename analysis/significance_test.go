package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

func TestMannWhitney(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b []float64
		want float64 // by hand: z = (|U − n1·n2/2| − ½)/σ, σ corrected for ties
	}{
		{"apart", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0.012185},       // U 0, σ 4.787, z 2.507
		{"interleaved", []float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10}, 0.676103}, // U 10, z 0.418
		{"ties", []float64{1, 1, 2, 2, 3}, []float64{2, 3, 3, 4, 4}, 0.052412},         // U 3, ties 2,3,3,2: σ 4.640, z 1.940
		{"all equal", []float64{5, 5, 5}, []float64{5, 5}, 1},
	} {
		if got := MannWhitney(tt.a, tt.b); math.Abs(got-tt.want) > 1e-4 {
			t.Errorf("%s: p = %.6f, want %.6f", tt.name, got, tt.want)
		}
	}
	if !math.IsNaN(MannWhitney(nil, []float64{1})) {
		t.Error("p of an empty sample is not NaN")
	}
}

// noisy is n seconds around mean with relative spread sd (seeded).
func noisy(rng *rand.Rand, n int, mean, sd float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = mean * (1 + sd*rng.NormFloat64())
	}
	return out
}

func TestCompareSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := noisy(rng, 30, 1000, 0.03)

	slower := noisy(rng, 30, 800, 0.03)
	s := CompareSamples(base, slower, 0)
	if !s.Significant() || s.Verdict(true) != Worse || s.Lo > -0.15 || s.Hi < -0.25 || s.Lo > s.Rel || s.Hi < s.Rel {
		t.Errorf("20%% slower: %+v, want significant, worse, an interval around -20%%", s)
	}
	if s.Verdict(false) != Better {
		t.Errorf("lower latency is not better: %v", s.Verdict(false))
	}
	again := CompareSamples(base, slower, 0)
	if again.Lo != s.Lo || again.Hi != s.Hi {
		t.Errorf("bootstrap not repeatable: %v..%v then %v..%v", s.Lo, s.Hi, again.Lo, again.Hi)
	}

	// The same distribution: no verdict in at least 19 of 20 tries.
	calls := 0
	for range 20 {
		if v := CompareSamples(base, noisy(rng, 30, 1000, 0.03), 0).Verdict(true); v != Same {
			calls++
		}
	}
	if calls > 1 {
		t.Errorf("%d of 20 draws of the same distribution called better or worse", calls)
	}

	// A small but real change is significant but within Noise.
	if s := CompareSamples(base, noisy(rng, 30, 1030, 0.005), 0); s.Verdict(true) != Same || s.Say(true) != "within ±5%" {
		t.Errorf("+3%%: %+v (%s), want significant but within ±5%%", s, s.Say(true))
	}

	// Three seconds of each: however different, no verdict.
	few := CompareSamples(base[:3], slower[:3], 0)
	if few.Enough() || few.Verdict(true) != Same || few.Say(true) != "too few seconds (3 vs 3, need 5)" || !math.IsNaN(few.P) {
		t.Errorf("3 seconds: %+v (%s), want no verdict", few, few.Say(true))
	}
}

func TestSamples(t *testing.T) {
	row := func(phase, op string, count, errs int64, length time.Duration) results.IntervalRow {
		return results.IntervalRow{Phase: phase, Op: op, Count: count, Errors: errs, Length: length, P99US: 100 * count, MeanUS: 7}
	}
	ivs := []results.IntervalRow{
		row(measure.PhaseWarmup, "READ", 50, 0, time.Second),
		row(measure.PhaseMeasure, "READ", 100, 10, time.Second),
		row(measure.PhaseMeasure, "UPDATE", 5, 0, time.Second),
		row(measure.PhaseMeasure, "READ", 0, 0, time.Second),
		row(measure.PhaseMeasure, "READ", 60, 0, 2*time.Second),
		row(measure.PhaseMeasure, "READ", 3, 0, 200*time.Millisecond), // trailing partial second
	}
	for _, tt := range []struct {
		m    Metric
		want []float64
	}{
		{Throughput, []float64{90, 0, 30}}, // successful operations per second
		{Errors, []float64{10, 0, 0}},
		{P99, []float64{10000, 6000}}, // a second without operations has no latency
		{Mean, []float64{7, 7}},
		{P999, nil}, // not stored per second
	} {
		got := Samples(ivs, "READ", tt.m)
		if len(got) != len(tt.want) {
			t.Errorf("%v: %v, want %v", tt.m, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%v: %v, want %v", tt.m, got, tt.want)
				break
			}
		}
	}
}

// The linear-time median of a resample is the median of the values drawn.
func TestResampledMedian(t *testing.T) {
	for _, n := range []int{1, 2, 5, 6, 31} {
		sorted := make([]float64, n)
		for i := range sorted {
			sorted[i] = float64(i*i) + 0.5
		}
		fast, slow := rand.New(rand.NewPCG(9, uint64(n))), rand.New(rand.NewPCG(9, uint64(n)))
		counts := make([]int, n)
		for round := range 50 {
			drawn := make([]float64, n)
			for i := range drawn {
				drawn[i] = sorted[slow.IntN(n)]
			}
			if got, want := resampledMedian(fast, sorted, counts), Median(drawn); got != want {
				t.Fatalf("n %d, round %d: %v, want %v", n, round, got, want)
			}
		}
	}
}

package run

import (
	"math"
	"slices"
	"testing"
	"time"
)

// offsets is an arrival process at a constant rate, as the open model
// draws it: unit-rate epochs through the rate curve.
func offsets(a Arrival, rate float64, seed int64) func() time.Duration {
	e, c := a.epochs(seed), constantCurve(rate)
	return func() time.Duration {
		t, _ := c.at(e())
		return t
	}
}

func gaps(next func() time.Duration, n int) []float64 {
	out := make([]float64, n)
	prev := time.Duration(0)
	for i := range out {
		t := next()
		out[i] = float64(t - prev)
		prev = t
	}
	return out
}

// Poisson arrivals: the gaps are independent exponentials with mean 1/rate.
// Seeded, so the test is deterministic, but every check would catch a wrong
// rate, a non-exponential shape or correlated gaps.
func TestPoissonArrivals(t *testing.T) {
	const n, rate = 20000, 1000.0
	g := gaps(offsets(Poisson{}, rate, 42), n)
	mean := 0.0
	for _, x := range g {
		mean += x
	}
	mean /= n
	want := 1e9 / rate
	if math.Abs(mean-want)/want > 0.03 { // 3% ≈ 4 standard errors
		t.Errorf("mean gap %.0f ns, want %.0f", mean, want)
	}
	var sd, lag float64
	for i, x := range g {
		sd += (x - mean) * (x - mean)
		if i > 0 {
			lag += (x - mean) * (g[i-1] - mean)
		}
	}
	if cv := math.Sqrt(sd/n) / mean; math.Abs(cv-1) > 0.05 {
		t.Errorf("coefficient of variation %.3f, want 1 (exponential)", cv)
	}
	if r := lag / sd; math.Abs(r) > 0.03 {
		t.Errorf("lag-1 autocorrelation %.3f, want ≈ 0", r)
	}
	// Kolmogorov–Smirnov against the exponential CDF at the 1% level.
	s := slices.Clone(g)
	slices.Sort(s)
	d := 0.0
	for i, x := range s {
		f := 1 - math.Exp(-x/want)
		d = max(d, math.Abs(f-float64(i)/n), math.Abs(float64(i+1)/n-f))
	}
	if crit := 1.63 / math.Sqrt(n); d > crit {
		t.Errorf("KS statistic %.4f > %.4f: gaps are not exponential", d, crit)
	}
}

func TestArrivalsSeeded(t *testing.T) {
	a, b, c := gaps(offsets(Poisson{}, 10, 7), 100), gaps(offsets(Poisson{}, 10, 7), 100), gaps(offsets(Poisson{}, 10, 8), 100)
	if !slices.Equal(a, b) {
		t.Error("same seed, different arrivals")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds, same arrivals")
	}
}

func TestConstantArrivalsDoNotDrift(t *testing.T) {
	a := offsets(Constant{}, 3000, 1) // 333333.33 ns apart
	var last time.Duration
	for k := 0; k <= 3_000_000; k++ {
		last = a()
	}
	if last != 1000*time.Second {
		t.Errorf("arrival 3,000,000 at %v, want exactly 1000s", last)
	}
}

func TestSeedForIsDistinct(t *testing.T) {
	seen := map[int64]bool{}
	for stream := streamClients; stream <= streamArrivals; stream++ {
		for i := 0; i < 1000; i++ {
			s := seedFor(1, stream, i)
			if seen[s] {
				t.Fatalf("seed collision at stream %d client %d", stream, i)
			}
			seen[s] = true
		}
	}
	if seedFor(1, streamClients, 0) == seedFor(2, streamClients, 0) {
		t.Error("run seed does not change client seeds")
	}
}

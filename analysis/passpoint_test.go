package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFitPassPoint(t *testing.T) {
	t.Parallel()
	p, f := true, false
	cases := []struct {
		name            string
		trials          []Trial
		ok              bool
		mid             float64 // want within 0.2 %
		maxRel          float64 // the band at most this wide (0: any)
		lowMax, highMin float64 // the band reaches at least these
	}{
		{name: "no failure", trials: []Trial{{100, p}, {110, p}}},
		{name: "no pass", trials: []Trial{{100, f}, {110, f}}},
		{name: "nothing", trials: nil},
		// Passes below failures: midway (geometrically), the band no
		// narrower than the gap.
		{name: "separated", trials: []Trial{{100, p}, {105, f}, {100, p}, {105, f}}, ok: true, mid: math.Sqrt(100 * 105), maxRel: 0.10, lowMax: 100, highMin: 105},
		{name: "separated wider", trials: []Trial{{100, p}, {121, f}, {100, p}, {121, f}}, ok: true, mid: 110, lowMax: 100, highMin: 121},
		// As many passes as failures at one target, more passes below and
		// more failures above: that target.
		{name: "balanced", trials: []Trial{{90, p}, {90, p}, {100, p}, {100, f}, {100, p}, {100, f}, {111.11, f}, {111.11, f}}, ok: true, mid: 100, lowMax: 100, highMin: 100},
		{name: "zero targets ignored", trials: []Trial{{0, f}, {100, p}, {-1, p}, {105, f}}, ok: true, mid: math.Sqrt(100 * 105)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := FitPassPoint(c.trials, 0.05)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, c.ok, got)
			}
			if !ok {
				return
			}
			if math.Abs(got.Mid/c.mid-1) > 0.002 {
				t.Errorf("mid %.2f, want %.2f", got.Mid, c.mid)
			}
			if !(got.Low <= got.Mid && got.Mid <= got.High) || c.highMin > 0 && (got.Low > c.lowMax || got.High < c.highMin) {
				t.Errorf("band %.2f … %.2f around %.2f: want it to reach %.2f … %.2f", got.Low, got.High, got.Mid, c.lowMax, c.highMin)
			}
			if c.maxRel > 0 && got.Relative > c.maxRel {
				t.Errorf("band %.2f … %.2f (%.1f %%), want at most %.0f %%", got.Low, got.High, got.Relative*100, c.maxRel*100)
			}
			if got.Runs != countPositive(c.trials) {
				t.Errorf("runs %d", got.Runs)
			}
		})
	}
}

func countPositive(ts []Trial) int {
	n := 0
	for _, t := range ts {
		if t.Target > 0 {
			n++
		}
	}
	return n
}

// A store whose runs pass with a logistic probability around 1,000 ops/s
// (s = 5 %, about PostgreSQL's on the 2-core VM): runs placed by an
// up-and-down staircase, as a rating's final runs are. The band holds
// the true point in most ratings (86 % of 200 here, below the nominal
// 95 %: a staircase's runs depend on each other; at least 80 %),
// narrows with more runs, and two ratings' points of 16 runs each lie
// within 10 % of each other far more often than the majority rule's.
func TestFitPassPointCoversTheTruth(t *testing.T) {
	t.Parallel()
	const truth, scale = 1000.0, 0.05
	rng := rand.New(rand.NewPCG(1, 2))
	run := func(x float64) bool {
		return rng.Float64() < 1/(1+math.Exp((math.Log(x)-math.Log(truth))/scale))
	}
	staircase := func(start float64, n int) []Trial {
		x, out := start, make([]Trial, 0, n)
		for range n {
			pass := run(x)
			out = append(out, Trial{x, pass})
			if pass {
				x *= 1.05
			} else {
				x /= 1.05
			}
		}
		return out
	}
	covered, within, ratings := 0, 0, 200
	var width8, width16 float64
	prev := 0.0
	for i := range ratings {
		p8, ok8 := FitPassPoint(staircase(1100, 8), 0.05)
		p, ok := FitPassPoint(staircase(1100, 16), 0.05)
		if !ok || !ok8 {
			continue
		}
		width8, width16 = width8+p8.Relative, width16+p.Relative
		if p.Low <= truth && truth <= p.High {
			covered++
		}
		if i%2 == 1 && math.Abs(p.Mid-prev)/math.Min(p.Mid, prev) <= 0.10 {
			within++
		}
		prev = p.Mid
	}
	if covered < ratings*80/100 {
		t.Errorf("the band held the true point in %d of %d ratings, want at least 80 %%", covered, ratings)
	}
	if width16 >= width8 {
		t.Errorf("mean band of 16 runs %.1f %%, of 8 runs %.1f %%: want narrower with more runs", width16/float64(ratings)*100, width8/float64(ratings)*100)
	}
	if within < ratings/2*90/100 {
		t.Errorf("%d of %d pairs within 10 %%, want at least 90 %%", within, ratings/2)
	}
	t.Logf("covered %d/%d, pairs within 10 %%: %d/%d, mean band 8 runs %.1f %%, 16 runs %.1f %%", covered, ratings, within, ratings/2, width8/float64(ratings)*100, width16/float64(ratings)*100)
}

func FuzzFitPassPoint(f *testing.F) {
	f.Add(100.0, 105.0, 3, uint8(0b101))
	f.Fuzz(func(t *testing.T, a, b float64, n int, bits uint8) {
		if n < 0 || n > 8 || !(a > 0 && b > 0 && a < 1e12 && b < 1e12) {
			return
		}
		var ts []Trial
		for i := range n {
			x := a
			if i%2 == 1 {
				x = b
			}
			ts = append(ts, Trial{x, bits&(1<<i) != 0})
		}
		p, ok := FitPassPoint(ts, 0.05)
		if !ok {
			return
		}
		lo, hi := math.Min(a, b)/2.01, math.Max(a, b)*2.01
		if !(p.Low <= p.Mid && p.Mid <= p.High && p.Low >= lo && p.High <= hi) || math.IsNaN(p.Relative) {
			t.Errorf("%+v from %v: want Low ≤ Mid ≤ High within a factor of two of the targets", p, ts)
		}
	})
}

// BenchmarkFitPassPoint: one fit of a rating's 16 final runs (a staircase
// on five targets); a rating fits after every final run.
func BenchmarkFitPassPoint(b *testing.B) {
	p, f := true, false
	trials := []Trial{{1000, p}, {1050, p}, {1102.5, f}, {1050, f}, {1000, p}, {1050, p}, {1102.5, f}, {1050, p},
		{1102.5, f}, {1050, f}, {1000, f}, {952.4, p}, {1000, p}, {1050, f}, {1000, p}, {1050, p}}
	for b.Loop() {
		if _, ok := FitPassPoint(trials, 0.05); !ok {
			b.Fatal("no fit")
		}
	}
}

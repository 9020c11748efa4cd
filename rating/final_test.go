package rating

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dbrig/dbrig/analysis"
)

// When the final runs are done: at least minFinals of them, passes and
// failures among them and the pass point's band within the precision; or
// maxFinals; or a bound they cannot pass.
func TestFinalsDone(t *testing.T) {
	t.Parallel()
	p, f := true, false
	runs := func(n int) []analysis.Trial {
		var out []analysis.Trial
		for i := range n {
			out = append(out, analysis.Trial{Target: 1000 + float64(i%2)*100, Pass: i%2 == 0})
		}
		return out
	}
	coin := func(n int) []analysis.Trial { // a coin toss at one target
		var out []analysis.Trial
		for i := range n {
			out = append(out, analysis.Trial{Target: 1000, Pass: i%2 == 0})
		}
		return out
	}
	cases := []struct {
		name   string
		finals []analysis.Trial
		max    float64
		want   bool
	}{
		{"none", nil, 0, false},
		// Passes and failures one step apart (a store that turns from
		// pass to fail within a step): the band within half of 20 %, but
		// done only from minFinals runs on.
		{"seven", runs(minFinals - 1), 0, false},
		{"eight", runs(minFinals), 0, true},
		{"all passed", []analysis.Trial{{Target: 1000, Pass: p}, {Target: 1100, Pass: p}, {Target: 1200, Pass: p}}, 0, false},
		{"coin toss", coin(6), 0, false},
		{"at most", coin(maxFinals), 0, true},
		{"at the bound", []analysis.Trial{{Target: 2000, Pass: p}, {Target: 2000, Pass: p}}, 2000, true},
		{"one at the bound", []analysis.Trial{{Target: 2000, Pass: p}}, 2000, false},
		{"failed below the bound", []analysis.Trial{{Target: 1900, Pass: f}, {Target: 2000, Pass: p}, {Target: 2000, Pass: p}}, 2000, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &rater{opts: Options{Precision: 0.2, Votes: 3}, finals: c.finals, finalStep: 0.1,
				srch: &searcher{by: ByRate, min: 1, max: c.max, growth: 2}}
			if got := r.finalsDone(); got != c.want {
				fit, ok := r.fitFinals()
				t.Errorf("done = %v, want %v (pass point %+v, %v)", got, c.want, fit, ok)
			}
		})
	}
}

// The final runs of many ratings of a store whose runs of the SLA's
// duration pass with a logistic probability around 1,000 ops/s (in the
// logarithm of the target, scale s), each from a search answer 10 % above
// it, precision 10 %: the staircase, the stopping rule and the pass point
// as a rating runs them, the store's runs drawn from a seeded generator.
// A store that turns from pass to fail within 0.1 % settles in about nine
// runs; one with s = 5 % (about PostgreSQL's on the 2-core VM) takes up to
// sixteen, and two ratings' answers lie within the precision in 95 of 100
// pairs (85 when the runs stopped at a band within the precision, from
// four runs on).
func TestStaircaseAgrees(t *testing.T) {
	t.Parallel()
	const truth, precision = 1000.0, 0.10
	for _, c := range []struct {
		scale    float64
		maxRuns  float64 // mean runs at most
		agree    int     // of 100 pairs within the precision, at least
		coverage int     // of 200 bands holding the truth, at least
	}{
		{scale: 0.001, maxRuns: 10, agree: 100, coverage: 190},
		{scale: 0.05, maxRuns: maxFinals, agree: 90, coverage: 160},
	} {
		rng := rand.New(rand.NewPCG(7, uint64(c.scale*1e6)))
		rate := func() (answer float64, p analysis.PassPoint, runs int) {
			r := &rater{opts: Options{Precision: precision}, finalStep: precision / 2, res: &Rating{}}
			s := &searcher{by: ByRate, min: 1, growth: 2}
			var sc staircase
			for !r.finalsDone() {
				x := s.round(1.1 * truth * math.Pow(1+precision/2, float64(sc.k)))
				pass := rng.Float64() < 1/(1+math.Exp((math.Log(x)-math.Log(truth))/c.scale))
				r.finals = append(r.finals, analysis.Trial{Target: x, Pass: pass})
				sc.step(pass)
			}
			r.decideFinal(s, 1.1*truth)
			if r.res.Final != nil {
				p = *r.res.Final
			}
			return r.res.Answer, p, len(r.finals)
		}
		agree, covered, runs := 0, 0, 0
		for range 100 {
			a, pa, na := rate()
			b, pb, nb := rate()
			if math.Abs(a-b)/math.Min(a, b) <= precision+1e-9 {
				agree++
			}
			for _, p := range []analysis.PassPoint{pa, pb} {
				if p.Low <= truth && truth <= p.High {
					covered++
				}
			}
			runs += na + nb
		}
		mean := float64(runs) / 200
		t.Logf("s = %g: %d of 100 pairs within %g %%, %d of 200 bands hold the truth, %.1f final runs on average", c.scale, agree, precision*100, covered, mean)
		if agree < c.agree || covered < c.coverage || mean > c.maxRuns {
			t.Errorf("s = %g: %d pairs agree (want %d), %d bands hold the truth (want %d), %.1f runs (want at most %g)", c.scale, agree, c.agree, covered, c.coverage, mean, c.maxRuns)
		}
	}
}

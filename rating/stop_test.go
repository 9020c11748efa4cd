package rating

import (
	"context"
	"math"
	"testing"
)

// The search stops when the bracket is within the precision of its lower
// bound, the answer: hi − lo ≤ precision·lo, not ·hi (which would stop
// up to a precision² early) nor anything looser. Over many true answers
// and starts, the lowest failure tried is within the precision of the
// answer, and the search did not go on once it was.
func TestSearchStopsWithinPrecisionOfTheAnswer(t *testing.T) {
	for _, precision := range []float64{0.05, 0.2, 0.5} {
		for _, start := range []float64{100, 1000, 7000} {
			for truth := 150.0; truth < 20000; truth *= 1.013 {
				s := newSearcher(ByRate, start, 0, precision)
				lo, hi := 0.0, math.Inf(1)
				wasWithin := false
				got, err := s.run(context.Background(), func(_ context.Context, x float64) (bool, error) {
					wasWithin = hi-lo <= precision*lo
					pass := x <= truth
					if pass {
						lo = max(lo, x)
					} else {
						hi = min(hi, x)
					}
					return pass, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if got != lo || got > truth {
					t.Fatalf("precision %g start %g truth %g: answer %g, highest pass %g", precision, start, truth, got, lo)
				}
				if hi-lo > precision*lo {
					t.Errorf("precision %g start %g truth %.1f: stopped at %g with a failure at %g: %.2f%% apart, want at most %g%% of the answer",
						precision, start, truth, lo, hi, 100*(hi-lo)/lo, 100*precision)
				}
				if wasWithin {
					t.Errorf("precision %g start %g truth %.1f: one more target after the bracket %g … %g was within the precision", precision, start, truth, lo, hi)
				}
			}
		}
	}
}

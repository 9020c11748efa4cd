package rating

import "testing"

// The rating's verdict on its spread follows analysis's rule, which the
// reports of a stored rating apply too (report.ratingSpread): the same
// cases, the same answers, float rounding at the precision included.
func TestSpreadWiderFollowsAnalysis(t *testing.T) {
	for _, tc := range []struct {
		low, high, precision float64
		wider                bool
	}{
		{100, 110, 0.1, false},
		{3, 3.6, 0.2, false},
		{7, 7.7, 0.1, false},
		{100, 111, 0.1, true},
	} {
		s := spread([]Step{{Kind: "search", Target: tc.low}, {Kind: "search", Target: tc.high, Pass: true}})
		if s == nil || s.Low != tc.low || s.High != tc.high {
			t.Fatalf("spread = %+v, want %v..%v", s, tc.low, tc.high)
		}
		if got := s.wider(tc.precision); got != tc.wider {
			t.Errorf("%v..%v at %v: wider %v, want %v", tc.low, tc.high, tc.precision, got, tc.wider)
		}
	}
}

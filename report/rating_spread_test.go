package report

import (
	"testing"

	"github.com/dbrig/dbrig/results"
)

// A stored rating's spread is judged by analysis's rule, as the rating
// judged it when it ran (rating.Spread): the same cases, the same answers,
// float rounding at the precision included.
func TestRatingSpreadFollowsAnalysis(t *testing.T) {
	for _, tc := range []struct {
		low, high, precision float64
		wider                bool
	}{
		{100, 110, 0.1, false},
		{3, 3.6, 0.2, false},
		{7, 7.7, 0.1, false},
		{100, 111, 0.1, true},
	} {
		rel, wider, ok := ratingSpread(results.Rating{SpreadLow: &tc.low, SpreadHigh: &tc.high, Precision: tc.precision})
		if !ok || rel != (tc.high-tc.low)/tc.low || wider != tc.wider {
			t.Errorf("%v..%v at %v: %v, wider %v (%v); want wider %v", tc.low, tc.high, tc.precision, rel, wider, ok, tc.wider)
		}
	}
	if _, _, ok := ratingSpread(results.Rating{}); ok {
		t.Error("a rating without a spread has one")
	}
}

package analysis

import "testing"

// spreadCases are at and near the precision, where float rounding decides
// unless the rule leaves room for it.
var spreadCases = []struct {
	low, high, precision float64
	wider                bool
}{
	{100, 110, 0.1, false},
	{3, 3.6, 0.2, false}, // 0.20000000000000004
	{7, 7.7, 0.1, false}, // 0.10000000000000002
	{100, 111, 0.1, true},
	{14000, 19000, 0.05, true},
}

func TestSpreadRule(t *testing.T) {
	for _, tc := range spreadCases {
		rel := RelativeSpread(tc.low, tc.high)
		if want := (tc.high - tc.low) / tc.low; rel != want {
			t.Errorf("RelativeSpread(%v, %v) = %v, want %v", tc.low, tc.high, rel, want)
		}
		if got := SpreadWider(rel, tc.precision); got != tc.wider {
			t.Errorf("%v..%v at %v: wider %v, want %v", tc.low, tc.high, tc.precision, got, tc.wider)
		}
	}
}

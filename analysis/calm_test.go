package analysis

import "testing"

func TestCalmBound(t *testing.T) {
	cases := []struct {
		v    []float64
		want int64
	}{
		{nil, 0},
		{[]float64{5}, 5},
		{[]float64{1, 3}, 4},                // mean 2, σ 1
		{[]float64{1000, 1100, 900}, 1164},  // mean 1000, σ 81.6
		{[]float64{10, 10, 10, 10, 50}, 50}, // mean 18, σ 16
	}
	for _, tc := range cases {
		if got := CalmBound(MeanSD(tc.v)); got != tc.want {
			t.Errorf("CalmBound(MeanSD(%v)) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

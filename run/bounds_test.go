package run

import (
	"errors"
	"math"
	"testing"
	"time"
)

// A rate dbrig cannot pace (so high that generating the arrivals would
// outlast the run, or so low that the first arrival overflows a duration)
// is refused before anything runs; the bounds themselves are accepted.
func TestRateBounds(t *testing.T) {
	cases := []struct {
		rate float64
		ok   bool
	}{
		{MinRate, true}, {1, true}, {MaxRate, true},
		{1e8, false}, {1e9, false}, {1e308, false}, {1e-10, false}, {MinRate / 2, false},
		{math.Inf(1), false}, {math.NaN(), false},
	}
	for _, tc := range cases {
		models := map[string]Model{
			"open":   Open{Rate: tc.rate},
			"closed": Closed{Rate: tc.rate},
			"schedule": Open{Schedule: []RateStep{
				{Rate: tc.rate, For: time.Second}}},
		}
		for name, m := range models {
			err := m.Check(1)
			var ce *ConfigError
			if tc.ok && err != nil || !tc.ok && !errors.As(err, &ce) {
				t.Errorf("%s rate %g: %v (want ok=%v)", name, tc.rate, err, tc.ok)
			}
		}
	}
}

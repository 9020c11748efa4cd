package loadmodel

import (
	"testing"
	"time"
)

// A step's text appears in dry runs and in errors about a schedule.
func TestRateStepString(t *testing.T) {
	for _, tc := range []struct {
		step RateStep
		want string
	}{
		{RateStep{Rate: 100, For: 2 * time.Second}, "100/s for 2s"},
		{RateStep{Rate: 2500, For: 1500 * time.Millisecond, Ramp: true}, "ramp to 2500/s over 1.5s"},
		{RateStep{Rate: 0.5, For: time.Minute}, "0.5/s for 1m0s"},
	} {
		if got := tc.step.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.step, got, tc.want)
		}
	}
}

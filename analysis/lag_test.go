package analysis

import (
	"testing"

	"github.com/dbrig/dbrig/measure"
)

func TestGeneratorLate(t *testing.T) {
	for _, tc := range []struct {
		lagP99, respP50 int64
		want            bool
	}{
		{0, 100, false},     // closed model: no lag at all
		{9, 100, false},     // 9% of p50
		{11, 100, true},     // 11%
		{200, 100, true},    // the harness added more than the system took
		{500, 50000, false}, // 500 µs next to a 50 ms database
	} {
		s := measure.Summary{Lag: measure.Stats{P99: tc.lagP99}}
		s.Overall.Response.P50 = tc.respP50
		if got := GeneratorLate(s); got != tc.want {
			t.Errorf("lag p99 %d µs, response p50 %d µs: late %v, want %v", tc.lagP99, tc.respP50, got, tc.want)
		}
	}
}

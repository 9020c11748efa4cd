package report

import (
	"strings"
	"testing"

	"github.com/dbrig/dbrig/machine"
	"github.com/dbrig/dbrig/run"
)

// The floor is printed beside the precision, with the share of sleeps the
// spin wait does not cover; --floor 0 leaves it out.
func TestSelftestFloor(t *testing.T) {
	r := &run.SelftestResult{CPUs: 2, SpinWait: "200µs", Floor: &run.FloorResult{IntervalUS: 1000,
		Sleep: run.HiccupsUS{Samples: 1900, P50: 40, P99: 180, P999: 5200, Max: 5300},
		Spin:  run.HiccupsUS{Samples: 2000, P50: 0, P99: 12, P999: 5000, Max: 5012}, SleepsOverSpinWaitPct: 0.25}}
	var b strings.Builder
	Selftest(&b, r)
	for _, want := range []string{"machine floor", "sleep: woke late by", "spin: stalled for", "5.30ms", "5.00ms", "per 1ms", "0.25% of sleeps woke later than the spin wait (200µs)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in:\n%s", want, b.String())
		}
	}
	r.Floor = nil
	b.Reset()
	Selftest(&b, r)
	if strings.Contains(b.String(), "machine floor") || strings.Contains(b.String(), "machine steadiness") {
		t.Errorf("floor or steadiness printed without one:\n%s", b.String())
	}
	r.Steadiness = &machine.Steadiness{Windows: 9, Cache: machine.Variation{CV: 0.25, MinMedian: 0.71}, ALU: machine.Variation{CV: 0.02, MinMedian: 0.97}}
	b.Reset()
	Selftest(&b, r)
	for _, want := range []string{"machine steadiness (work per 250ms window, 9 windows each", "cache-bound (8 MB hash map): coefficient of variation 25.0%, slowest window 71% of the median", "register-only arithmetic:    coefficient of variation 2.0%"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in:\n%s", want, b.String())
		}
	}
}

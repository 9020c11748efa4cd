package rating

import (
	"strings"
	"testing"
)

func TestSpread(t *testing.T) {
	s := func(kind string, target float64, pass bool) Step { return Step{Kind: kind, Target: target, Pass: pass} }
	inconclusive := s("search", 500, false)
	inconclusive.Inconclusive = true
	tests := []struct {
		name     string
		steps    []Step
		low, hi  float64 // 0, 0: no spread
		wider10  bool    // wider than a precision of 10 %
		describe string
	}{
		{name: "a clean bisection", steps: []Step{s("search", 1000, true), s("search", 2000, false), s("search", 1500, true), s("search", 1750, false), s("final", 1500, true)}},
		{name: "split votes at one target", steps: []Step{s("search", 1000, true), s("search", 2000, false), s("search", 2000, true), s("search", 2000, false)},
			low: 2000, hi: 2000},
		{name: "a failure below a pass", steps: []Step{s("search", 1000, true), s("search", 2000, true), s("search", 4000, false), s("search", 3000, false), s("search", 2500, true), s("search", 1400, false)},
			low: 1400, hi: 2500, wider10: true, describe: "a run failed at 1,400 ops/s, one passed at 2,500 ops/s"},
		{name: "a final failure below a search pass is no contradiction", steps: []Step{s("search", 2000, true), s("search", 4000, false), s("final", 2000, false), s("final", 1800, true)}},
		{name: "a final pass above a search failure is one", steps: []Step{s("search", 1900, false), s("final", 2000, true)},
			low: 1900, hi: 2000},
		{name: "inconclusive runs say nothing", steps: []Step{inconclusive, s("search", 1000, true)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := spread(tt.steps)
			if tt.hi == 0 {
				if got != nil {
					t.Fatalf("spread = %+v, want none", got)
				}
				return
			}
			if got == nil || got.Low != tt.low || got.High != tt.hi {
				t.Fatalf("spread = %+v, want %v..%v", got, tt.low, tt.hi)
			}
			if got.wider(0.1) != tt.wider10 {
				t.Errorf("wider(10%%) = %v (relative %.3f), want %v", !tt.wider10, got.Relative, tt.wider10)
			}
			if d := got.describe(ByRate, 0.1); !strings.Contains(d, tt.describe) {
				t.Errorf("describe = %q, want it to contain %q", d, tt.describe)
			}
		})
	}
	var none *Spread
	if none.wider(0.05) {
		t.Error("no spread is wider than the precision")
	}
}

package report

import (
	"math"
	"testing"

	"github.com/dbrig/dbrig/analysis"
)

// A chart's YMax sets the top of its PNG's y-scale, whatever its lines
// reach (the load phase's batch latencies above it are clipped).
func TestPNGYMax(t *testing.T) {
	for _, tc := range []struct {
		ymax, want float64
	}{
		{0, 300 * 1.05}, // the data's own top
		{4, 4 * 1.05},
	} {
		c := analysis.Chart{Kind: analysis.KindLatency, X: []analysis.Num{1, 2, 3},
			Lines: []analysis.Line{{Label: "p99", Color: "#1f77b4", Y: []analysis.Num{300, 2, 4}}}, YMax: tc.ymax}
		p, err := plotOf(c)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.Y.Max-tc.want) > 1e-9 {
			t.Errorf("YMax %v: y-scale top %v, want %v", tc.ymax, p.Y.Max, tc.want)
		}
	}
}

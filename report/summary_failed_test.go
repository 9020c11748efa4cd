package report

import (
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
)

// The phase line's ops/s counts successes; errors carry their share; a
// phase that mostly failed says so under it.
func TestSummaryErrorShare(t *testing.T) {
	tests := []struct {
		name          string
		count, errors int64
		want, not     []string
	}{
		{"clean", 1000, 0, []string{"1,000 operations, 500 ops/s, 0 errors\n"}, []string{"FAILED"}},
		{"some errors", 1000, 100, []string{"1,000 operations, 450 ops/s, 100 errors (10%)\n"}, []string{"FAILED"}},
		{"mostly failed", 1000, 950, []string{"1,000 operations, 25.0 ops/s, 950 errors (95%)\n",
			"FAILED: 95% of operations failed (950 of 1000 in the measure phase; a run fails above 50%); ops/s counts the 50 that succeeded\n"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iv := measure.Interval{Phase: measure.PhaseMeasure, Start: t0, End: t0.Add(2 * time.Second),
				Ops: []measure.OpInterval{{Op: "READ", Count: tt.count, Errors: tt.errors, Response: histOf(t, 100), Service: histOf(t, 100)}}}
			var b strings.Builder
			if err := Summary(&b, Header{}, []measure.Summary{measure.Summarize(measure.PhaseMeasure, []measure.Interval{iv}, nil)}); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %q in\n%s", w, b.String())
				}
			}
			for _, n := range tt.not {
				if strings.Contains(b.String(), n) {
					t.Errorf("unexpected %q in\n%s", n, b.String())
				}
			}
		})
	}
}

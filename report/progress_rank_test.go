package report

import (
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/measure"
)

// The progress line's p99s are measure's (nearest rank), not
// hdrhistogram's rounded rank: of 1…60 µs, p99 is the 60th value.
func TestProgressPercentilesAreMeasures(t *testing.T) {
	var vals []int64
	for v := int64(1); v <= 60; v++ {
		vals = append(vals, v)
	}
	resp, lag := histOf(t, vals...), histOf(t, vals...)
	if measure.Percentile(lag, 99) == lag.ValueAtPercentile(99) {
		t.Fatal("the values do not tell the two ranks apart")
	}
	iv := measure.Interval{Phase: measure.PhaseMeasure, Start: t0, End: t0.Add(time.Second),
		Ops: []measure.OpInterval{{Op: "READ", Count: 60, Response: resp}}, Lag: lag}
	want := "p99 " + format.MicrosInt(measure.Percentile(resp, 99)) + " | lag p99 " + format.MicrosInt(measure.Percentile(lag, 99)) + " |"
	if got := Progress(iv, time.Second, -1); !strings.Contains(got, want) {
		t.Errorf("got %q, want it to contain %q", got, want)
	}
}

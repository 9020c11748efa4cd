package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/results"
)

// A rating with the machine's load: the steps' column, the load line, and
// an interval without an upper bound said first, on every surface.
func TestRatingMachineLoad(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	r := results.Rating{ID: 9, System: "sim", Workload: "workloada", SLA: "p95<10ms", By: "rate", Strategy: "reload",
		Precision: 0.1, SLADurationS: 4, Status: "done", Answer: f(3000), Confirmed: true, Start: time.Now(),
		IntervalLow: f(3000), IntervalHigh: f(4600), IntervalUnbounded: true, OthersMean: f(0.45), OthersMax: f(0.8), Cores: 2,
		Steps: []results.RatingStep{
			{Kind: "search", Target: 3000, Achieved: 3000, Pass: true, Verdict: "pass", RunID: 1, Reset: "load", Others: f(0.1)},
			{Kind: "search", Target: 4600, Achieved: 3900, Verdict: "fail", RunID: 2, Reset: "reload", Others: f(0.8)},
			{Kind: "final", Target: 3000, Achieved: 3000, Pass: true, Verdict: "pass", RunID: 3, Reset: "reload"},
		}}
	var b bytes.Buffer
	if err := Rating(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"interval: 3,000 ops/s … no upper bound, WIDER than the precision of 10%: MACHINE TOO BUSY",
		"(the lowest at 4,600 ops/s)", "(up to 80% of the machine's 2 cores)",
		"load: other processes kept 45% of the machine's 2 cores busy before an experiment on average, 80% at most (more than half",
		"others", " 80%", " 10%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "interval:"), strings.Index(out, "answer:"); i < 0 || j < i {
		t.Errorf("the interval does not come first:\n%s", out)
	}
	b.Reset()
	if err := RatingList(&b, []results.Rating{r}); err != nil || !strings.Contains(b.String(), "3,000 … unbounded (machine too busy)") {
		t.Errorf("list: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := RatingHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<p class="answer">interval 3,000 ops/s … no upper bound, WIDER`) {
		t.Errorf("the page does not start with the unbounded interval")
	}
	// Bounded, raised by the load: the usual line, and the load line.
	r.IntervalUnbounded, r.IntervalHigh, r.OthersMax = false, f(8000), f(0.3)
	b.Reset()
	if err := Rating(&b, r); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "interval: 3,000 ops/s … 8,000 ops/s (167%), WIDER") || strings.Contains(out, "more than half") {
		t.Errorf("bounded output:\n%s", out)
	}
}

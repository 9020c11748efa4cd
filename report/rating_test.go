package report

import (
	"bytes"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/results"
)

func TestRatingTable(t *testing.T) {
	answer := 1900.0
	r := results.Rating{ID: 7, System: "sim", Workload: "workloada", SLA: "p95<50ms", By: "rate", Strategy: "snapshot",
		Precision: 0.05, SLADurationS: 60, Status: "done", Answer: &answer, Confirmed: true, Start: time.Now(),
		FirstLoadS: 12, ResetCount: 2, ResetsS: 1, Experiments: 2, ExperimentsS: 20, FinalS: 60, TotalS: 93.5, EarlySavedS: 8,
		Steps: []results.RatingStep{
			{Kind: "search", Target: 1000, Achieved: 999, Pass: true, RunID: 3, Reset: "load", Seconds: 10,
				Terms: []results.RatingTerm{{Term: "p95<50ms", Measured: 1.5, Limit: 50, Unit: "ms", Pass: true}}},
			{Kind: "search", Target: 2000, Achieved: 1800, StoppedEarly: true, RunID: 4, Reset: "snapshot", ResetS: 0.5, Seconds: 2,
				Terms: []results.RatingTerm{{Term: "p95<50ms", Measured: 480, Limit: 50, Unit: "ms"}}},
			{Kind: "final", Target: 1900, Achieved: 1890, Pass: true, RunID: 5, Reset: "snapshot", ResetS: 0.5, Seconds: 60,
				Terms: []results.RatingTerm{{Term: "p95<50ms", Measured: 30, Limit: 50, Unit: "ms", Pass: true}}},
		}}
	var b bytes.Buffer
	if err := Rating(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"rating 7: sim, workloada, SLA p95<50ms", "reset snapshot", "precision 5%",
		"480ms ✗", "stopped", "answer: 1,900 ops/s (confirmed by the final runs)",
		"ζ first load 12.000 s", "2 resets × 0.500 s", "2 experiments × 10.000 s", "Δ final 60.000 s", "+ other 0.500 s",
		"early stopping saved 8.000 s", "resets: 1% of Λ; had they cost nothing, this rating would have been 1.0× faster\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Count(out, "\n"); lines != 9 {
		t.Errorf("%d lines, want header, table of 4, answer, time, resets, saved:\n%s", lines, out)
	}
	b.Reset()
	reload := r
	reload.Strategy, reload.ResetsS = "reload", 69.35
	if err := Rating(&b, reload); err != nil || !strings.Contains(b.String(), "resets: 74% of Λ; had they cost nothing, this rating would have been 3.9× faster (the most any reset strategy can gain over it with the same experiments)") {
		t.Errorf("a reload rating's ceiling: %v\n%s", err, b.String())
	}
	b.Reset()
	final := r
	final.Final = &results.RatingFinal{Mid: 1900, Low: 1850, High: 1960, Scale: 0.034, Runs: 12, Passes: 7}
	if err := Rating(&b, final); err != nil || !strings.Contains(b.String(), "\nfinal runs: 12 counted, 7 passed; pass point 1,900 ops/s, band 1,850 ops/s … 1,960 ops/s (6%); a run's chance to pass falls from 73% to 27% within ±3% of it\n") {
		t.Errorf("with the final runs' pass point: %v\n%s", err, b.String())
	}
	b.Reset()
	lo, hi := 1500.0, 1900.0
	r.SpreadLow, r.SpreadHigh = &lo, &hi
	if err := Rating(&b, r); err != nil || !strings.Contains(b.String(), "spread: a run failed at 1,500 ops/s, one passed at 1,900 ops/s (27%, WIDER than the precision") {
		t.Errorf("with a spread: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := RatingList(&b, []results.Rating{r}); err != nil || !strings.Contains(b.String(), "27% (unstable)") {
		t.Errorf("list with a spread: %v\n%s", err, b.String())
	}
	b.Reset()
	cv := 0.22
	r.MachineCV = &cv
	if err := Rating(&b, r); err != nil || !strings.Contains(b.String(), "machine: cache-bound work varied by 22% (coefficient of variation, 250 ms windows) before the rating, LESS steady than the precision") {
		t.Errorf("with the machine's steadiness: %v\n%s", err, b.String())
	}
	r.MachineCV = nil
	b.Reset()
	hi = 1550
	if err := Rating(&b, r); err != nil || !strings.Contains(b.String(), "(3%, within the precision)") {
		t.Errorf("with a narrow spread: %v\n%s", err, b.String())
	}
	b.Reset()
	r.Answer, r.Message, r.Status = nil, "no rate meets the SLA: even 1 ops/s failed it", "done"
	if err := Rating(&b, r); err != nil || !strings.Contains(b.String(), "no answer: no rate meets the SLA") {
		t.Errorf("without an answer: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := RatingList(&b, []results.Rating{r}); err != nil || !strings.Contains(b.String(), "p95<50ms") {
		t.Errorf("list: %v\n%s", err, b.String())
	}
}

func TestRatingPNG(t *testing.T) {
	answer := 1900.0
	r := results.Rating{ID: 7, System: "sim", Workload: "workloada", SLA: "p95<50ms", By: "rate", Answer: &answer,
		Steps: []results.RatingStep{
			{Target: 1000, Pass: true, Terms: []results.RatingTerm{{Term: "p95<50ms", Measured: 1.5, Limit: 50, Unit: "ms", Pass: true}}},
			{Target: 4000, StoppedEarly: true, Terms: []results.RatingTerm{{Term: "p95<50ms", Measured: 900, Limit: 50, Unit: "ms"}}},
			{Target: 2100, Terms: []results.RatingTerm{{Term: "p95<50ms", Measured: 70, Limit: 50, Unit: "ms"}}},
		}}
	p, err := ratingPlot(r)
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Max != 200 {
		t.Errorf("y axis up to %g, want 4× the 50 ms limit (a 900 ms failure would flatten the rest)", p.Y.Max)
	}
	var b bytes.Buffer
	if err := RatingPNG(&b, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("\x89PNG")) || b.Len() < 1000 {
		t.Errorf("not a PNG: %d bytes", b.Len())
	}
	if _, err := ratingPlot(results.Rating{ID: 1}); err == nil {
		t.Error("a rating without experiments plotted")
	}
	// The spread is a band of its own colour; without one, that colour is
	// nowhere.
	if n := spreadPixels(t, b.Bytes()); n != 0 {
		t.Errorf("%d pixels of the spread's colour without a spread", n)
	}
	lo, hi := 1500.0, 2100.0
	r.SpreadLow, r.SpreadHigh = &lo, &hi
	b.Reset()
	if err := RatingPNG(&b, r); err != nil {
		t.Fatal(err)
	}
	if n := spreadPixels(t, b.Bytes()); n < 1000 {
		t.Errorf("%d pixels of the spread's colour, want a band", n)
	}
}

func spreadPixels(t *testing.T, data []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) == spreadColor {
				n++
			}
		}
	}
	return n
}

// A rating with an inconclusive step, the reference probe, the store's
// condition, a budget and an interval wider than the precision: the table
// shows the step as inconclusive with its reason (not FAIL), the interval
// comes before the answer and says it is wider, and the page says so too.
func TestRatingInconclusiveConditionInterval(t *testing.T) {
	answer, lo, hi, before, after, drift, small, previous := 1900.0, 1520.0, 2400.0, 5000.0, 4000.0, 0.4, 0.01, 5600.0
	cond := func(b float64) []results.ConditionFigure {
		return []results.ConditionFigure{{Name: "table_bytes", Value: b, Unit: "bytes"}, {Name: "dead_share", Value: 0, Unit: "share"}}
	}
	r := results.Rating{ID: 8, System: "sim", Workload: "workloada", SLA: "p95<50ms", By: "rate", Strategy: "snapshot",
		Precision: 0.05, SLADurationS: 60, Status: "done", Answer: &answer, Confirmed: true, Start: time.Now(),
		IntervalLow: &lo, IntervalHigh: &hi, ReferenceBefore: &before, ReferenceAfter: &after, BudgetS: 300, BudgetStopped: true,
		ReferencePreviousID: 7, ReferencePrevious: &previous,
		Steps: []results.RatingStep{
			{Kind: "reference", Target: 32, Achieved: 5000, RunID: 2, Reset: "load", Condition: cond(100e6)},
			{Kind: "search", Target: 1000, Achieved: 999, Pass: true, Verdict: "pass", RunID: 3, Reset: "snapshot", Condition: cond(101e6), Drift: &small, DriftFigure: "table_bytes"},
			{Kind: "search", Target: 2000, Achieved: 1200, Verdict: "inconclusive", InconclusiveWhy: "the store's condition drifted: table_bytes +40% (100.0 MB → 140.0 MB)",
				RunID: 4, Reset: "snapshot", Condition: cond(140e6), Drift: &drift, DriftFigure: "table_bytes"},
			{Kind: "search", Target: 2000, Achieved: 1800, Verdict: "inconclusive", InconclusiveWhy: "dbrig's load generator was late (dispatch lag p95 30ms, half the limit is 25ms)", RunID: 5, Reset: "snapshot"},
			{Kind: "final", Target: 1900, Achieved: 1890, Pass: true, Verdict: "pass", RunID: 6, Reset: "snapshot"},
			{Kind: "reference", Target: 32, Achieved: 4000, RunID: 7, Reset: "snapshot"},
		}}
	var b bytes.Buffer
	if err := Rating(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"inconclusive (store drifted: table_bytes +40%)", "inconclusive (dbrig late)", "32 clients, reads",
		"interval: 1,520 ops/s … 2,400 ops/s (58%), WIDER than the precision of 5%: the answer is not known to the precision asked\nanswer: 1,900 ops/s",
		"reference: the read burst completed 5,000 ops/s before the first experiment, 4,000 after the last (-20%, MORE than the precision",
		"reference: rating 7 of the same data set completed 5,600 ops/s before its first experiment (-11% to this one, MORE than the precision: the store's capacity moved between the ratings",
		"condition: after the load settled table_bytes 100.0 MB, dead_share 0.0%; largest drift table_bytes +40% (step 3); 1 failures on a drifted store were inconclusive",
		"budget: 5m0s, which stopped the rating before it reached the precision",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "FAIL") {
		t.Errorf("an inconclusive step shown as FAIL:\n%s", out)
	}
	b.Reset()
	if err := RatingList(&b, []results.Rating{r}); err != nil || !strings.Contains(b.String(), "1,520 … 2,400 (58%) wider") {
		t.Errorf("list with an interval: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := RatingHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); !strings.Contains(page, `<p class="answer">interval 1,520 ops/s … 2,400 ops/s (58%), WIDER than the precision: answer: 1,900 ops/s`) || !strings.Contains(page, "inconclusive (dbrig late)") {
		t.Errorf("the page lacks the interval first or the inconclusive step")
	}
}

// The dashboard's step cells (RatingStepVerdict, RatingStepTarget) are the
// table's: an inconclusive step is not FAIL there either.
func TestRatingStepCells(t *testing.T) {
	for _, c := range []struct {
		step         results.RatingStep
		verdict, tgt string
	}{
		{results.RatingStep{Kind: "search", Target: 2000, Verdict: "inconclusive", InconclusiveWhy: "dbrig's load generator was late (dispatch lag p95 30ms)"}, "inconclusive (dbrig late)", "2,000 ops/s"},
		{results.RatingStep{Kind: "search", Target: 2000, Verdict: "fail", Reason: "vote 2: the target failed before; p95"}, "FAIL (vote 2)", "2,000 ops/s"},
		{results.RatingStep{Kind: "final", Target: 1900, Pass: true, Verdict: "pass"}, "pass", "1,900 ops/s"},
		{results.RatingStep{Kind: "reference", Target: 32}, "-", "32 clients, reads"},
		{results.RatingStep{Kind: "probe", Target: 32}, "-", "32 clients, closed"},
	} {
		if v, tg := RatingStepVerdict(c.step), RatingStepTarget("rate", c.step); v != c.verdict || tg != c.tgt {
			t.Errorf("step %+v: %q, %q; want %q, %q", c.step, v, tg, c.verdict, c.tgt)
		}
	}
}

package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/results"
)

// probeKind is the kind of a rating's capacity probe: the client pool
// back to back, no target and no verdict (rating.KindProbe; report may
// not import rating).
const probeKind = "probe"

// referenceKind is the kind of the reference probe's steps: a read burst
// before the first and after the last experiment (rating.KindReference).
const referenceKind = "reference"

// maxOthers is rating.MaxOthers: a failure while other processes kept more
// than this share of the machine busy bounds nothing.
const maxOthers = 0.5

// RatingDone prints a rating that just ended: its table, the rule that
// gave the answer, the time the store spent settling, and the state the
// data set was left in ("" when not said).
func RatingDone(w io.Writer, r results.Rating, rule string, settleS float64, left string) error {
	if err := Rating(w, r); err != nil {
		return err
	}
	fmt.Fprintf(w, "rule: %s\n", rule)
	if settleS > 0 {
		fmt.Fprintf(w, "settle: %.1f s of the load and reset time (ζ, ω·ν) was the store settling\n", settleS)
	}
	if left != "" {
		fmt.Fprintf(w, "data set: %s at the end (as loaded: a next rating can use --skip-load)\n", left)
	}
	return nil
}

// ratingValue shows an SLA term's measured value in its unit.
func ratingValue(t results.RatingTerm) string {
	switch t.Unit {
	case "ms":
		return format.Micros(t.Measured * 1000)
	case "%":
		return fmt.Sprintf("%.3g%%", t.Measured*100)
	case "ops/s":
		return format.Rate(t.Measured)
	}
	return format.Int(int64(t.Measured))
}

// Rating writes a stored rating: its steps as a table (target, achieved
// throughput, every SLA term as measured, pass, early stop, the reset
// before it, its run), the answer, and the rating-time split
// Λ = ζ + ω·ν + η·δ + Δ with the measured terms.
func Rating(w io.Writer, r results.Rating) error {
	ew := &errWriter{w: w}
	ew.printf("rating %d: %s, %s, SLA %s for %s, by %s, reset %s, precision %g%%\n",
		r.ID, r.System, r.Workload, r.SLA, format.Seconds(r.SLADurationS), r.By, r.Strategy, r.Precision*100)
	t := &table{left: map[int]bool{1: true}}
	head := []string{"#", "kind", "target", "achieved"}
	var terms []string
	for _, s := range r.Steps {
		for _, tm := range s.Terms {
			if !contains(terms, tm.Term) {
				terms = append(terms, tm.Term)
			}
		}
	}
	for _, tm := range terms {
		head = append(head, strings.Replace(tm, " of target", "", 1))
	}
	head = append(head, "pass", "early", "reset", "reset s", "run s", "run")
	others := false // the machine's load was measured before some step
	for _, s := range r.Steps {
		others = others || s.Others != nil
	}
	if others {
		head = append(head, "others")
	}
	t.add(head...)
	for i, s := range r.Steps {
		row := []string{fmt.Sprint(i + 1), s.Kind, RatingStepTarget(r.By, s), format.Rate(s.Achieved)}
		for _, name := range terms {
			cell := "-"
			for _, tm := range s.Terms {
				if tm.Term == name {
					cell = ratingValue(tm)
					if !tm.Pass {
						cell += " ✗"
					}
				}
			}
			row = append(row, cell)
		}
		pass, early, run, reset := RatingStepVerdict(s), "", "-", "-" // the dashboard's too
		if s.StoppedEarly {
			early = "stopped"
		}
		if s.RunID != 0 {
			run = fmt.Sprint(s.RunID)
		}
		if s.Reset != "load" { // the first load's time is ζ, below
			reset = fmt.Sprintf("%.2f", s.ResetS)
		}
		row = append(row, pass, early, s.Reset, reset, fmt.Sprintf("%.1f", s.Seconds), run)
		if others {
			cell := "-"
			if s.Others != nil {
				cell = fmt.Sprintf("%.0f%%", *s.Others*100)
			}
			row = append(row, cell)
		}
		t.add(row...)
	}
	if len(r.Steps) > 0 {
		ew.table(t, "  ")
	}
	if line := RatingInterval(r); line != "" {
		ew.printf("interval: %s\n", line) // the answer's first line: whether it is known to the precision
	}
	switch {
	case r.Answer == nil && r.Status == results.StatusRunning:
		ew.printf("no answer yet (running)\n")
	case r.Answer == nil:
		ew.printf("no answer: %s\n", r.Message)
	default:
		conf := "confirmed by the final runs"
		if !r.Confirmed {
			conf = "NOT confirmed: no final run passed"
		}
		ew.printf("answer: %s (%s)", format.Target(r.By, *r.Answer), conf)
		if r.Message != "" {
			ew.printf("; %s", r.Message)
		}
		ew.printf("\n")
	}
	if line := RatingFinal(r); line != "" {
		ew.printf("final runs: %s\n", line)
	}
	if rel, wider, ok := ratingSpread(r); ok {
		verdict := "within the precision"
		if wider {
			verdict = "WIDER than the precision: not a stable answer"
		}
		ew.printf("spread: a run failed at %s, one passed at %s (%.0f%%, %s)\n",
			format.Target(r.By, *r.SpreadLow), format.Target(r.By, *r.SpreadHigh), rel*100, verdict)
	}
	if cv := r.MachineCV; cv != nil {
		verdict := "steadier than the precision"
		if *cv > r.Precision {
			verdict = "LESS steady than the precision: a store's capacity moves with it"
		}
		ew.printf("machine: cache-bound work varied by %.0f%% (coefficient of variation, 250 ms windows) before the rating, %s\n", *cv*100, verdict)
	}
	ratingLoad(ew, r)
	ratingReference(ew, r)
	ratingCondition(ew, r)
	if r.BudgetS > 0 {
		ew.printf("budget: %s", secs(r.BudgetS))
		if r.BudgetStopped {
			ew.printf(", which stopped the rating before it reached the precision")
		}
		ew.printf("\n")
	}
	nu := 0.0
	if r.ResetCount > 0 {
		nu = r.ResetsS / float64(r.ResetCount)
	}
	delta := 0.0
	if r.Experiments > 0 {
		delta = r.ExperimentsS / float64(r.Experiments)
	}
	ew.printf("time: Λ %s = ζ first load %s + ω·ν %d resets × %s + η·δ %d experiments × %s + Δ final %s",
		format.Seconds(r.TotalS), format.Seconds(r.FirstLoadS), r.ResetCount, format.Seconds(nu),
		r.Experiments, format.Seconds(delta), format.Seconds(r.FinalS))
	if other := r.TotalS - r.FirstLoadS - r.ResetsS - r.ExperimentsS - r.FinalS; other > 0.0005 {
		ew.printf(" + other %s", format.Seconds(other))
	}
	ew.printf("\n")
	if c := r.ResetCeiling(); c > 0 {
		ew.printf("resets: %.0f%% of Λ; had they cost nothing, this rating would have been %.1f× faster", r.ResetsS/r.TotalS*100, c)
		if r.Strategy == "reload" {
			ew.printf(" (the most any reset strategy can gain over it with the same experiments)")
		}
		ew.printf("\n")
	}
	if r.EarlySavedS > 0 {
		ew.printf("early stopping saved %s of experiment time\n", format.Seconds(r.EarlySavedS))
	}
	return ew.err
}

// ratingSpread is a rating's spread relative to its low end, and whether
// it is wider than the precision (ok false: no spread).
func ratingSpread(r results.Rating) (rel float64, wider, ok bool) {
	if r.SpreadLow == nil || r.SpreadHigh == nil || *r.SpreadLow <= 0 {
		return 0, false, false
	}
	rel = analysis.RelativeSpread(*r.SpreadLow, *r.SpreadHigh)
	return rel, analysis.SpreadWider(rel, r.Precision), true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// RatingList writes one line per rating.
func RatingList(w io.Writer, rs []results.Rating) error {
	if len(rs) == 0 {
		_, err := fmt.Fprintln(w, "no ratings")
		return err
	}
	t := &table{left: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true}}
	t.add("id", "started", "status", "system", "workload", "sla", "reset", "answer", "interval", "spread", "total")
	for _, r := range rs {
		answer, spread, interval := "-", "-", "-"
		if r.Answer != nil {
			answer = format.Target(r.By, *r.Answer)
		}
		if iv := RatingIntervalCell(r); iv != "" {
			interval = iv
		}
		if rel, wider, ok := ratingSpread(r); ok {
			spread = fmt.Sprintf("%.0f%%", rel*100)
			if wider {
				spread += " (unstable)"
			}
		}
		t.add(fmt.Sprint(r.ID), r.Start.Local().Format(listTime), r.Status, r.System, r.Workload, r.SLA, r.Strategy, answer, interval, spread, format.Seconds(r.TotalS))
	}
	return t.write(w, "")
}

// shortWhy is an inconclusive step's reason for its table cell.
func shortWhy(why string) string {
	switch {
	case strings.HasPrefix(why, "dbrig's load generator was late"):
		return "dbrig late"
	case strings.HasPrefix(why, "the store's condition drifted: "):
		d := strings.TrimPrefix(why, "the store's condition drifted: ")
		if i := strings.Index(d, " ("); i > 0 {
			d = d[:i]
		}
		return "store drifted: " + d
	}
	return why
}

// ratingReference writes what the reference probe completed before the
// first and after the last experiment, and whether that moved by more than
// the precision (the capacity the rating saw moved); and how far it moved
// from the last rating of the same data set.
func ratingReference(ew *errWriter, r results.Rating) {
	if r.ReferenceBefore == nil {
		return
	}
	before := *r.ReferenceBefore
	if r.ReferenceAfter == nil || before <= 0 {
		ew.printf("reference: the read burst completed %s ops/s before the first experiment (not run after the last)\n", format.Rate(before))
	} else {
		moved := analysis.Moved(before, *r.ReferenceAfter)
		verdict := "within the precision: the capacity held"
		if analysis.MovedMore(moved, r.Precision) {
			verdict = "MORE than the precision: the capacity moved during the rating (the interval is widened by it)"
		}
		ew.printf("reference: the read burst completed %s ops/s before the first experiment, %s after the last (%+.0f%%, %s)\n",
			format.Rate(before), format.Rate(*r.ReferenceAfter), moved*100, verdict)
	}
	if r.ReferencePrevious != nil && r.ReferencePreviousID != 0 {
		since := analysis.Moved(*r.ReferencePrevious, before)
		verdict := "within the precision: the capacity held between the ratings"
		if analysis.MovedMore(since, r.Precision) {
			verdict = "MORE than the precision: the store's capacity moved between the ratings (the interval is widened by it)"
		}
		ew.printf("reference: rating %d of the same data set completed %s ops/s before its first experiment (%+.0f%% to this one, %s)\n",
			r.ReferencePreviousID, format.Rate(*r.ReferencePrevious), since*100, verdict)
	}
}

// ratingCondition writes the store's condition as the first step measured
// it (the reference) and the largest drift any later step saw.
func ratingCondition(ew *errWriter, r results.Rating) {
	var ref []results.ConditionFigure
	worst, at, drifted := 0.0, -1, 0
	for i, s := range r.Steps {
		if ref == nil && s.Condition != nil {
			ref = s.Condition
		}
		if s.Drift != nil && (at < 0 || abs(*s.Drift) > abs(worst)) {
			worst, at = *s.Drift, i
		}
		if s.Verdict == "inconclusive" && strings.HasPrefix(s.InconclusiveWhy, "the store's condition drifted") {
			drifted++
		}
	}
	if ref == nil {
		return
	}
	var figs []string
	for _, f := range ref {
		figs = append(figs, conditionFigure(f))
	}
	ew.printf("condition: after the load settled %s", strings.Join(figs, ", "))
	if at >= 0 {
		s := r.Steps[at]
		change := fmt.Sprintf("%+.0f%%", worst*100)
		for _, f := range ref {
			if f.Name == s.DriftFigure && f.Unit == "share" {
				change = fmt.Sprintf("%+.1f points", worst*100)
			}
		}
		ew.printf("; largest drift %s %s (step %d)", s.DriftFigure, change, at+1)
	}
	if drifted > 0 {
		ew.printf("; %d failures on a drifted store were inconclusive", drifted)
	}
	ew.printf("\n")
}

func conditionFigure(f results.ConditionFigure) string {
	switch f.Unit {
	case "bytes":
		return fmt.Sprintf("%s %.1f MB", f.Name, f.Value/1e6)
	case "share":
		return fmt.Sprintf("%s %.1f%%", f.Name, f.Value*100)
	}
	return fmt.Sprintf("%s %s", f.Name, format.Int(int64(f.Value)))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// secs shows seconds as a duration: 300 → 5m0s.
func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// RatingIntervalCell is a rating's interval for a list's cell ("" without
// one): the terminal's and the dashboard's lists of ratings.
func RatingIntervalCell(r results.Rating) string {
	if r.IntervalLow == nil || r.IntervalHigh == nil || *r.IntervalLow <= 0 {
		return ""
	}
	if r.IntervalUnbounded {
		return format.Rate(*r.IntervalLow) + " … unbounded (machine too busy)"
	}
	rel := analysis.RelativeSpread(*r.IntervalLow, *r.IntervalHigh)
	cell := fmt.Sprintf("%s … %s (%.0f%%)", format.Rate(*r.IntervalLow), format.Rate(*r.IntervalHigh), rel*100)
	if analysis.SpreadWider(rel, r.Precision) {
		cell += " wider"
	}
	return cell
}

// RatingInterval says what a rating's interval is and whether it is known
// to the precision ("" without one): the first line of its answer.
func RatingInterval(r results.Rating) string {
	if r.IntervalLow == nil || r.IntervalHigh == nil || *r.IntervalLow <= 0 {
		return ""
	}
	lo, hi := format.Target(r.By, *r.IntervalLow), format.Target(r.By, *r.IntervalHigh)
	if r.IntervalUnbounded {
		busy := "more than half of the machine"
		if r.OthersMax != nil {
			busy = fmt.Sprintf("up to %.0f%% of the machine's %d cores", *r.OthersMax*100, r.Cores)
		}
		return fmt.Sprintf("%s … no upper bound, WIDER than the precision of %g%%: MACHINE TOO BUSY: every failure above the answer (the lowest at %s) ran while other processes kept more than half of the machine busy (%s), so nothing bounds what the store does on it unloaded",
			lo, r.Precision*100, hi, busy)
	}
	rel := analysis.RelativeSpread(*r.IntervalLow, *r.IntervalHigh)
	verdict := "within the precision"
	if analysis.SpreadWider(rel, r.Precision) {
		verdict = fmt.Sprintf("WIDER than the precision of %g%%: the answer is not known to the precision asked", r.Precision*100)
	}
	return fmt.Sprintf("%s … %s (%.0f%%), %s", lo, hi, rel*100, verdict)
}

// RatingFinal says where the final runs placed the answer ("" without a
// fit): their pass point, its band and scale, and how many ran and passed.
// The terminal's, the HTML page's and the dashboard's line.
func RatingFinal(r results.Rating) string {
	f := r.Final
	if f == nil || f.Low <= 0 {
		return ""
	}
	return fmt.Sprintf("%d counted, %d passed; pass point %s, band %s … %s (%.0f%%); a run's chance to pass falls from 73%% to 27%% within ±%.0f%% of it",
		f.Runs, f.Passes, format.Target(r.By, f.Mid), format.Target(r.By, f.Low), format.Target(r.By, f.High),
		analysis.RelativeSpread(f.Low, f.High)*100, f.Scale*100)
}

// ratingLoad writes how busy other processes kept the machine before the
// experiments, and what that does to the interval.
func ratingLoad(ew *errWriter, r results.Rating) {
	if r.OthersMean == nil || r.OthersMax == nil {
		return
	}
	ew.printf("load: other processes kept %.0f%% of the machine's %d cores busy before an experiment on average, %.0f%% at most", *r.OthersMean*100, r.Cores, *r.OthersMax*100)
	if *r.OthersMax > maxOthers {
		ew.printf(" (more than half: a failure then bounds nothing)")
	}
	ew.printf("; a failure's target is raised by 1/(1 − share)² toward the store on the machine unloaded\n")
}

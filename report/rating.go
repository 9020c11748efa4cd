package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/results"
)

// probeKind is the kind of a rating's capacity probe: the client pool
// back to back, no target and no verdict (rating.KindProbe; report may
// not import rating).
const probeKind = "probe"

// ratingTarget shows a rating's target or answer in its unit.
func ratingTarget(by string, x float64) string {
	if by == "clients" {
		return fmt.Sprintf("%.0f clients", x)
	}
	return format.Rate(x) + " ops/s"
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
	t.add(head...)
	for i, s := range r.Steps {
		target := ratingTarget(r.By, s.Target)
		if s.Kind == probeKind {
			target = fmt.Sprintf("%.0f clients, closed", s.Target)
		}
		row := []string{fmt.Sprint(i + 1), s.Kind, target, format.Rate(s.Achieved)}
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
		pass, early, run, reset := "FAIL", "", "-", "-"
		switch {
		case s.Kind == probeKind:
			pass = "-" // no verdict
		case s.Pass:
			pass = "pass"
		}
		if v, ok := strings.CutPrefix(s.Reason, "vote "); ok && len(v) > 0 && v[0] >= '2' && v[0] <= '9' {
			pass += " (vote " + v[:1] + ")" // a repeat of a failed target
		}
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
		t.add(row...)
	}
	if len(r.Steps) > 0 {
		ew.table(t, "  ")
	}
	switch {
	case r.Answer == nil && r.Status == results.StatusRunning:
		ew.printf("no answer yet (running)\n")
	case r.Answer == nil:
		ew.printf("no answer: %s\n", r.Message)
	default:
		conf := "confirmed by the final run"
		if !r.Confirmed {
			conf = "NOT confirmed by the final run"
		}
		ew.printf("answer: %s (%s)", ratingTarget(r.By, *r.Answer), conf)
		if r.Message != "" {
			ew.printf("; %s", r.Message)
		}
		ew.printf("\n")
	}
	if rel, wider, ok := ratingSpread(r); ok {
		verdict := "within the precision"
		if wider {
			verdict = "WIDER than the precision: not a stable answer"
		}
		ew.printf("spread: a run failed at %s, one passed at %s (%.0f%%, %s)\n",
			ratingTarget(r.By, *r.SpreadLow), ratingTarget(r.By, *r.SpreadHigh), rel*100, verdict)
	}
	if cv := r.MachineCV; cv != nil {
		verdict := "steadier than the precision"
		if *cv > r.Precision {
			verdict = "LESS steady than the precision: a store's capacity moves with it"
		}
		ew.printf("machine: cache-bound work varied by %.0f%% (coefficient of variation, 250 ms windows) before the rating, %s\n", *cv*100, verdict)
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
	t.add("id", "started", "status", "system", "workload", "sla", "reset", "answer", "spread", "total")
	for _, r := range rs {
		answer, spread := "-", "-"
		if r.Answer != nil {
			answer = ratingTarget(r.By, *r.Answer)
		}
		if rel, wider, ok := ratingSpread(r); ok {
			spread = fmt.Sprintf("%.0f%%", rel*100)
			if wider {
				spread += " (unstable)"
			}
		}
		t.add(fmt.Sprint(r.ID), r.Start.Local().Format(listTime), r.Status, r.System, r.Workload, r.SLA, r.Strategy, answer, spread, format.Seconds(r.TotalS))
	}
	return t.write(w, "")
}

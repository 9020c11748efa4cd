package report

import (
	"fmt"
	"strings"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/results"
)

// The cells of a rating's steps table, as the terminal shows them, for the
// dashboard's rating page (package web) to show the same.

// RatingTerms are the SLA terms a rating's steps measured, in order first
// seen, and each one's column heading.
func RatingTerms(r results.Rating) (terms, headings []string) {
	for _, s := range r.Steps {
		for _, tm := range s.Terms {
			if !contains(terms, tm.Term) {
				terms = append(terms, tm.Term)
				headings = append(headings, strings.Replace(tm.Term, " of target", "", 1))
			}
		}
	}
	return terms, headings
}

// RatingTermCell is a step's measured value of an SLA term with ✗ when it
// missed the limit; "-" when the step did not measure it.
func RatingTermCell(s results.RatingStep, term string) string {
	for _, tm := range s.Terms {
		if tm.Term == term {
			if !tm.Pass {
				return ratingValue(tm) + " ✗"
			}
			return ratingValue(tm)
		}
	}
	return "-"
}

// RatingStepTarget is what a step tried: a rate, a client count, or the
// capacity probe's client pool.
func RatingStepTarget(by string, s results.RatingStep) string {
	if s.Kind == probeKind {
		return fmt.Sprintf("%.0f clients, closed", s.Target)
	}
	return format.Target(by, s.Target)
}

// RatingStepVerdict is a step's verdict: pass, FAIL, "-" for the probe (no
// verdict), with the vote of a repeated target.
func RatingStepVerdict(s results.RatingStep) string {
	v := "FAIL"
	switch {
	case s.Kind == probeKind:
		v = "-"
	case s.Pass:
		v = "pass"
	}
	if n, ok := strings.CutPrefix(s.Reason, "vote "); ok && len(n) > 0 && n[0] >= '2' && n[0] <= '9' {
		v += " (vote " + n[:1] + ")"
	}
	return v
}

// RatingSpread is a rating's spread relative to its low end and whether it
// is wider than the precision (ok false: no spread).
func RatingSpread(r results.Rating) (rel float64, wider, ok bool) { return ratingSpread(r) }

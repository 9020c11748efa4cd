package rating

import (
	"math"

	"github.com/dbrig/dbrig/analysis"
)

// Interval is what a rating's runs support, for the store on this machine
// unloaded: from the answer (or lower, where a run failed below a pass:
// the spread, or where the final runs' pass-point band reaches: final.go)
// to the lowest target that failed above it (or higher, where a run passed
// above a failure, or the band reaches). A failure is raised by how much other
// processes may have held the store back then (machine.go: × g(s) of the
// share they kept busy before it); one made while they kept more than
// MaxOthers busy bounds nothing. Then the interval is widened by how far
// the reference probe's capacity moved between the first and the last
// experiment, or from the last rating of the same data set (reference.go),
// whichever moved more: by the ratio of the two capacities down and up; and
// by how unsteady the machine's speed measured before the rating (1 + the
// coefficient of variation of its cache-bound work). Measured on this
// project's 2-core VM: PostgreSQL's ratings passed 24,000 ops/s twice in
// one rating and failed it twice in the next, with the store's condition
// and the reference probe's start the same; the machine's cache-bound work
// varied by 7–10 % from one 250 ms window to the next. On a machine whose
// speed or a store whose condition moved, that is the honest answer: two
// ratings in a row should land inside each other's interval, not
// necessarily within the precision of each other.
type Interval struct {
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Relative float64 `json:"relative"` // (High − Low) / Low
	// Wider: wider than the precision asked, so the answer is not known to
	// it; the first line of the answer says so (report.Rating).
	Wider bool `json:"wider"`
	// Open: no target failed above the answer (the search's bound, or the
	// budget stopped it growing): High is the answer, not a failure.
	Open bool `json:"open,omitempty"`
	// Machine is g(s), the factor the failure that bounds High was raised
	// by for other processes' load before it (omitted: not measured).
	Machine float64 `json:"machine_factor,omitempty"`
	// ReferenceFactor is what the reference probe's move widened it by,
	// either way (reference.go: the larger move, within the rating or since
	// the last one of the same data set); Steadiness what the machine's
	// measured unsteadiness widened it by: 1 + the coefficient of variation
	// of its cache-bound work (machine.MeasureSteadiness). Omitted: 1.
	ReferenceFactor float64 `json:"reference_factor,omitempty"`
	Steadiness      float64 `json:"steadiness_factor,omitempty"`
	// Unbounded: every failure above the answer ran while other processes
	// kept more than MaxOthers of the machine busy, so nothing bounds what
	// the store does on it unloaded; High is the lowest of them as run,
	// and the interval is wider than any precision.
	Unbounded bool `json:"unbounded,omitempty"`
}

// interval computes the rating's interval (nil without an answer).
func (r *rater) interval() *Interval {
	res := r.res
	if !res.Found || res.Answer <= 0 {
		return nil
	}
	iv := Interval{Low: res.Answer}
	hi, ran := math.Inf(1), math.Inf(1) // projected to the machine unloaded; as run
	failed := false
	bound := func(target float64, g float64) {
		failed, ran = true, math.Min(ran, target)
		if g > 0 && target*g < hi {
			hi, iv.Machine = target*g, g
		}
	}
	for _, st := range res.Steps {
		if st.Verdict == verdictFail && st.Target > res.Answer && (st.Kind == "search" || st.Kind == "final") {
			bound(st.Target, stepUnloaded(st))
		}
	}
	if b := res.Budget; b != nil && b.Stopped && b.High > res.Answer {
		// The failure the search (or the final runs) decided, not a single
		// run of an undecided target: it bounds the interval when it lies
		// above the runs'. Raised by the load before the busiest of its runs.
		busiest := Step{}
		for _, st := range res.Steps {
			if st.Target == b.High && (st.Kind == "search" || st.Kind == "final") && st.Others != nil && (busiest.Others == nil || *st.Others > *busiest.Others) {
				busiest = st
			}
		}
		g := stepUnloaded(busiest)
		failed, ran = true, math.Min(ran, b.High)
		if g > 0 && (math.IsInf(hi, 1) || b.High*g > hi) {
			hi, iv.Machine = b.High*g, g
		}
	}
	if res.Load == nil {
		iv.Machine = 0 // not measured: no factor to show
	}
	switch {
	case !failed:
		iv.Open, hi = true, res.Answer
	case math.IsInf(hi, 1):
		iv.Unbounded, hi = true, ran
	}
	lo := iv.Low
	if sp := res.Spread; sp != nil {
		lo, hi = math.Min(lo, sp.Low), math.Max(hi, sp.High)
	}
	if p := res.Final; p != nil {
		lo, hi = math.Min(lo, p.Low), math.Max(hi, p.High)
	}
	f := 1.0 // a factor either way: a capacity twice as high or half as high
	if rf := res.Reference.widening(); rf > 1 {
		f, iv.ReferenceFactor = f*rf, rf
	}
	if m := res.Machine; m != nil && m.Cache.CV > 0 {
		// Two independent sources: the store's capacity moving over the
		// rating (the reference) and the machine's speed from one moment to
		// the next, which each experiment samples anew.
		iv.Steadiness = 1 + m.Cache.CV
		f *= iv.Steadiness
	}
	lo, hi = lo/f, hi*f
	iv.Low, iv.High = lo, hi
	iv.Relative = analysis.RelativeSpread(lo, hi)
	iv.Wider = iv.Unbounded || analysis.SpreadWider(iv.Relative, r.opts.Precision)
	return &iv
}

// stepUnloaded is g(s) of the load before the step (1: not measured; 0:
// too busy to bound anything).
func stepUnloaded(st Step) float64 {
	if st.Others == nil {
		return 1
	}
	return unloaded(*st.Others)
}

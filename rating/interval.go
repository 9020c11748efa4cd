package rating

import (
	"math"

	"github.com/dbrig/dbrig/analysis"
)

// Interval is what a rating's runs support: from the answer (or lower,
// where a run failed below a pass: the spread) to the lowest target that
// failed above it (or higher, where a run passed above a failure),
// widened by how far the reference probe's capacity moved between the
// first and the last experiment (reference.go): by the factor 1 + |move|
// down and up. On a machine whose speed
// or a store whose condition moved, that is the honest answer: two
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
}

// interval computes the rating's interval (nil without an answer).
func (r *rater) interval() *Interval {
	res := r.res
	if !res.Found || res.Answer <= 0 {
		return nil
	}
	lo, hi := res.Answer, math.Inf(1)
	for _, st := range res.Steps {
		if st.Verdict == verdictFail && st.Target > res.Answer && (st.Kind == "search" || st.Kind == "final") {
			hi = math.Min(hi, st.Target)
		}
	}
	if b := res.Budget; b != nil && b.Stopped && b.High > 0 && (math.IsInf(hi, 1) || b.High > hi) {
		hi = b.High // the failure the search decided, not a single run of an undecided target
	}
	open := math.IsInf(hi, 1)
	if open {
		hi = res.Answer
	}
	if sp := res.Spread; sp != nil {
		lo, hi = math.Min(lo, sp.Low), math.Max(hi, sp.High)
	}
	if ref := res.Reference; ref != nil && ref.After > 0 {
		w := math.Abs(ref.Moved)
		lo, hi = lo/(1+w), hi*(1+w) // a factor either way: a capacity twice as high or half as high
	}
	rel := analysis.RelativeSpread(lo, hi)
	return &Interval{Low: lo, High: hi, Relative: rel, Wider: analysis.SpreadWider(rel, r.opts.Precision), Open: open}
}

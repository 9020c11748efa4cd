package rating

import (
	"fmt"
	"math"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
)

// Spread is where a rating's runs contradicted each other: a run failed at
// Low although a run at High (≥ Low) passed. Between the two, the target
// did not decide the outcome, so the answer is not known more precisely
// than that band, whatever precision was asked: the store's capacity (or
// the host's) moved during the rating, or runs near the answer are a coin
// toss. Measured on PostgreSQL with 100 k records and a 128 MB buffer
// pool: one rating passed 19,000 ops/s in 4 of 5 runs, the next failed
// 14,000 in 3 of 5, as updates bloated the table past the pool and
// shrank its capacity by half (docs/measurements/rating-pairs.md).
type Spread struct {
	Low      float64 `json:"low"`      // the lowest target a run failed at, below a pass
	High     float64 `json:"high"`     // the highest target a run passed at, above a failure
	Relative float64 `json:"relative"` // (High − Low) / Low
}

// spread finds the band of contradicting runs among steps (nil: every
// failure lies above every pass). A failed final run is no contradiction:
// below a passed search run it is the longer, harder test, and the final
// runs step up and down around the target they pass half the time on
// purpose (final.go), their pass point's band says how well they placed
// it. Inconclusive runs (dbrig itself was late, the store had drifted)
// and the probes (no verdict) say nothing and are left out.
func spread(steps []Step) *Spread {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range steps {
		if f.Pass || f.Inconclusive || f.Kind == KindProbe || f.Kind == KindReference {
			continue
		}
		for _, p := range steps {
			if !p.Pass || p.Target < f.Target || f.Kind == "final" {
				continue
			}
			lo, hi = math.Min(lo, f.Target), math.Max(hi, p.Target)
		}
	}
	if math.IsInf(lo, 1) {
		return nil
	}
	return &Spread{Low: lo, High: hi, Relative: analysis.RelativeSpread(lo, hi)}
}

// wider says whether the spread is wider than the precision asked: then
// the answer cannot be trusted to it (analysis.SpreadWider, the rule
// reports apply to a stored rating).
func (s *Spread) wider(precision float64) bool {
	return s != nil && analysis.SpreadWider(s.Relative, precision)
}

// describe says what the spread means for the answer.
func (s *Spread) describe(by string, precision float64) string {
	return fmt.Sprintf("runs contradicted each other by %.0f%%, more than the precision of %g%%: a run failed at %s, one passed at %s; "+
		"the store's capacity moved during the rating (or runs near the answer are a coin toss), so a next rating may land anywhere in that band; "+
		"rate again (or with longer experiments, --duration) before trusting it to the precision",
		s.Relative*100, precision*100, format.Target(by, s.Low), format.Target(by, s.High))
}

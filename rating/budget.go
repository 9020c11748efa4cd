package rating

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/dbrig/dbrig/format"
)

// A rating a user can afford: Options.Budget caps its total time. Before
// each search experiment the rating checks that the experiment (its
// warmup, length and the mean reset so far) and then the final run still
// fit; when they do not, the search stops with the bracket it has (the
// highest pass, the lowest failure) and confirms the highest pass once.
// The rating reports the bracket and the precision it reached. An
// up-front estimate says what the rating will take; after each step,
// Hooks.Progress gives the time spent and an estimate of the time left.

// errBudget ends a search whose next experiment would not fit the budget.
var errBudget = errors.New("the budget does not leave time for the next experiment")

// Budget is a rating's time budget and estimate, and where the budget
// stopped it.
type Budget struct {
	BudgetS float64 `json:"budget_s,omitempty"` // 0: no budget
	// EstimateS is the up-front estimate of the experiments' time
	// (EstimateExperiments of them, warmups included), without the load,
	// the resets and the settling, which are measured as the rating goes.
	EstimateS           float64 `json:"estimate_s"`
	EstimateExperiments int     `json:"estimate_experiments"`
	// Stopped: the budget ended the search before it reached the precision;
	// Low is the highest target that passed, High the lowest that failed
	// (0: none failed), Reached (High − Low) / Low (0 without High).
	Stopped bool    `json:"stopped"`
	Low     float64 `json:"low,omitempty"`
	High    float64 `json:"high,omitempty"`
	Reached float64 `json:"precision_reached,omitempty"`
	// Finals is how many final runs ran when the budget stopped them (0:
	// it stopped the search); Band: Low … High is then the 95 % band of
	// their pass point (final.go), not a pass and a failure.
	Finals int  `json:"final_runs,omitempty"`
	Band   bool `json:"band,omitempty"`
}

// Line says the estimate (and the budget) on one line.
func (b Budget) Line() string {
	s := fmt.Sprintf("estimate: about %d experiments, %s of them with warmups, plus the load, the resets and settling (measured as the rating goes)", b.EstimateExperiments, secs(b.EstimateS))
	if b.BudgetS > 0 {
		s += fmt.Sprintf("; budget %s", secs(b.BudgetS))
	}
	return s
}

// Progress is where a rating stands after a step.
type Progress struct {
	Elapsed time.Duration `json:"elapsed"`
	Left    time.Duration `json:"left"`   // an estimate
	Budget  time.Duration `json:"budget"` // 0: none
}

// Line says it on one line: "1m10s spent, about 1m30s left (budget 5m0s)".
func (p Progress) Line() string {
	s := fmt.Sprintf("%s spent, about %s left", p.Elapsed.Round(time.Second), p.Left.Round(time.Second))
	if p.Budget > 0 {
		s += fmt.Sprintf(" (budget %s)", p.Budget)
	}
	return s
}

// bisections is how many targets a bisection from a bracket of relative
// width rel takes to reach precision.
func bisections(rel, precision float64) int {
	if rel <= precision {
		return 0
	}
	return int(math.Ceil(math.Log2(rel / precision)))
}

// votesPer is the runs a target near the answer takes on average: a
// majority of Votes (two of three), one with a single vote.
func (o *Options) votesPer() float64 {
	if o.Votes <= 1 {
		return 1
	}
	return float64(o.Votes/2 + 1)
}

// estimate is the up-front estimate: how many experiments (counting
// repeats), and their seconds. From the probe the search grows to the
// capacity in two steps, then bisects from half of it; without a probe
// it grows from its start for a guessed five doublings. Every target near
// the answer takes a majority of runs, and so do the final runs that
// confirm it; the final runs, at least minFinals (final.go).
func (o *Options) estimate() (n int, seconds float64) {
	w := max(0, o.Warmup).Seconds()
	step, final := w+o.Step.Seconds(), w+o.SLADuration.Seconds()
	searches := 0.0
	if o.probe {
		n++
		seconds += step
		searches = 2 + float64(bisections(1, o.Precision))*o.votesPer()
	} else {
		searches = 5 + float64(bisections(1, o.Precision))*o.votesPer()
	}
	if o.Reference {
		n += 2
		seconds += 2 * (w + referenceLength.Seconds())
	}
	n += int(math.Ceil(searches)) + minFinals
	return n, seconds + math.Ceil(searches)*step + minFinals*final
}

// minimum is the least a rating needs: the probe, one search experiment,
// the least final runs and the reference probes.
func (o *Options) minimum() time.Duration {
	w := max(0, o.Warmup)
	d := w + o.Step + minFinals*(w+o.SLADuration)
	if o.probe {
		d += w + o.Step
	}
	if o.Reference {
		d += 2 * (w + referenceLength)
	}
	return d
}

// meanReset is the mean reset so far (its settle included), 0 before the
// first.
func (r *rater) meanReset() float64 {
	if r.res.Time.ResetCount == 0 {
		return 0
	}
	return r.res.Time.ResetsS / float64(r.res.Time.ResetCount)
}

// cost is what an experiment of length dur takes: warmup, length, reset.
func (r *rater) cost(dur time.Duration) float64 {
	return max(0, r.opts.Warmup).Seconds() + dur.Seconds() + r.meanReset()
}

// reserve is what the budget keeps for after the search: the least final
// runs and the reference probe after them.
func (r *rater) reserve() float64 {
	d := minFinals * r.cost(r.opts.SLADuration)
	if r.opts.Reference && r.table != "" {
		d += r.cost(referenceLength)
	}
	return d
}

// affords tells whether an experiment of kind and length dur fits the
// budget; an experiment before the final runs must leave their reserve,
// a final run the reference probe's.
func (r *rater) affords(kind string, dur time.Duration) bool {
	if r.opts.Budget <= 0 {
		return true
	}
	need := r.cost(dur)
	switch {
	case kind == "search" || kind == KindProbe || kind == KindReference && !r.finalDone:
		need += r.reserve()
	case kind == "final" && r.opts.Reference && r.table != "":
		need += r.cost(referenceLength) // the reference after them tells whether the capacity moved
	}
	return r.elapsed().Seconds()+need <= r.opts.Budget.Seconds()
}

// elapsed is the rating's time so far.
func (r *rater) elapsed() time.Duration { return r.now().Sub(r.began) }

// left estimates the time the rating still takes from where the search
// stands.
func (r *rater) left() time.Duration {
	step, final := r.cost(r.opts.Step), r.cost(r.opts.SLADuration)
	secs := 0.0
	s := r.srch
	switch {
	case r.finalDone:
	case r.inFinal:
		secs = float64(r.finalsLeft()) * final
	case s == nil: // the probe or the reference before it
		n, est := r.opts.estimate()
		left := max(0, n-len(r.res.Steps))
		secs = est - r.res.Time.ExperimentsS + float64(left)*r.meanReset()
	default:
		n := 0.0
		switch {
		case s.lo == 0 && math.IsInf(s.hi, 1):
			n = 2 + float64(bisections(1, r.opts.Precision))*r.opts.votesPer()
		case math.IsInf(s.hi, 1):
			n = 1 + float64(bisections(1, r.opts.Precision))*r.opts.votesPer()
		case s.lo == 0:
			n = 2 + float64(bisections(1, r.opts.Precision))*r.opts.votesPer()
		default:
			n = float64(bisections((s.hi-s.lo)/s.lo, r.opts.Precision)) * r.opts.votesPer()
		}
		secs = n*step + minFinals*final
	}
	if r.opts.Reference && r.table != "" && !r.referenceDone {
		secs += r.cost(referenceLength)
	}
	if b := r.opts.Budget; b > 0 {
		secs = math.Min(secs, (b - r.elapsed()).Seconds()) // the budget stops it by then
	}
	return time.Duration(math.Max(0, secs) * float64(time.Second))
}

// finalsLeft estimates the final runs still to come: up to the least;
// with a pass point whose band is wider than half the precision, as many
// more as narrow it to that (a band narrows as one over the square
// root of the runs), at most maxFinals in all.
func (r *rater) finalsLeft() int {
	n := len(r.finals)
	switch {
	case r.finalsDone():
		return 0
	case n < minFinals:
		return minFinals - n
	}
	p, ok := r.fitFinals()
	if !ok {
		return min(2, maxFinals-n)
	}
	more := float64(n)*math.Pow(p.Relative/r.opts.Precision, 2) - float64(n)
	return max(1, min(maxFinals-n, int(math.Ceil(more))))
}

// progress reports where the rating stands (Hooks.Progress).
func (r *rater) progress() {
	if r.hooks.Progress != nil {
		r.hooks.Progress(Progress{Elapsed: r.elapsed(), Left: r.left(), Budget: r.opts.Budget})
	}
}

// budgetStopped records the bracket the budget left the search with.
func (r *rater) budgetStopped(lo, hi float64) {
	b := r.res.Budget
	b.Stopped, b.Low = true, lo
	if !math.IsInf(hi, 1) {
		b.High = hi
		if lo > 0 {
			b.Reached = (hi - lo) / lo
		}
	}
}

// describe says what the budget did ("" if it did not stop the rating).
func (b *Budget) describe(by string, precision float64) string {
	if b == nil || !b.Stopped {
		return ""
	}
	switch {
	case b.Band:
		return fmt.Sprintf("the budget of %s ended the final runs after %d: the target they pass as often as they fail lies between %s and %s (their likelihood band, nominally 95%%), %.0f%% apart, the precision asked was %g%%",
			secs(b.BudgetS), b.Finals, format.Target(by, b.Low), format.Target(by, b.High), b.Reached*100, precision*100)
	case b.Finals > 0 && b.Low == 0 && b.High > 0:
		return fmt.Sprintf("the budget of %s ended the final runs after %d with none passing (the lowest failure: %s)", secs(b.BudgetS), b.Finals, format.Target(by, b.High))
	case b.Low == 0 && b.High == 0:
		return fmt.Sprintf("the budget of %s ran out before any target was decided", secs(b.BudgetS))
	case b.Low == 0:
		return fmt.Sprintf("the budget of %s ran out with no target passing (the lowest failure: %s)", secs(b.BudgetS), format.Target(by, b.High))
	case b.High == 0:
		return fmt.Sprintf("the budget of %s ran out while the search still grew: the answer is at least %s", secs(b.BudgetS), format.Target(by, b.Low))
	}
	return fmt.Sprintf("the budget of %s stopped the rating between %s (passed) and %s (failed): %.0f%% apart, the precision asked was %g%%",
		secs(b.BudgetS), format.Target(by, b.Low), format.Target(by, b.High), b.Reached*100, precision*100)
}

// secs shows seconds as a duration: 300 → 5m0s.
func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

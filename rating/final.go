package rating

import (
	"context"
	"errors"
	"math"

	"github.com/dbrig/dbrig/analysis"
)

// The final runs last the SLA's full duration (Δ) and decide the answer.
// Near its capacity a store passes some runs and fails others at the same
// target, and a run of Δ is a harder test than the search's shorter ones:
// on this project's 2-core VM PostgreSQL passed 2 s runs at 24,000 ops/s
// in 16 of 20 and 4 s runs in 7 of 18. So one final target decided by a
// majority of two or three runs landed anywhere between 17,280 and 24,000
// from one rating to the next (two snapshot ratings 17 % apart, two keep
// ratings 32 %). Instead the final runs form an up-and-down staircase
// (Dixon and Mood's method): from the search's answer, one step up after
// a pass and one down after a failure, the step half the precision,
// doubling while the outcome repeats (faster before it first turns: a
// store whose long runs fail far below the search's answer is found in a
// few runs). The answer is the target the final runs pass as often as
// they fail, fitted to all of them (analysis.FitPassPoint); the runs go
// on until its likelihood band (nominally 95 %) is within
// half the precision, at least minFinals and at most maxFinals of them.
// Half, and eight: stopping as soon as the band was within the precision
// (from four runs) stopped on runs that looked steeper than the store by
// chance, and the answers of two ratings of a store whose runs pass with
// a logistic probability of scale 5 % (about PostgreSQL's here) lay within
// 10 % of each other in 85 of 100 simulated pairs; with this rule in 95
// (sixteen runs always: 99), and a store that turns from pass to fail
// within a step still settles in about nine (TestStaircaseAgrees).
const (
	minFinals = 8
	maxFinals = 16
)

// confirm runs the final staircase from the search's answer. Its targets
// lie on one grid, the answer times (1 + step)^k, so that the runs come
// back to the targets they tried and the fit sees several runs at each.
func (r *rater) confirm(ctx context.Context, s *searcher, answer float64) error {
	step := r.opts.Precision / 2
	r.finalStep = step
	if s.by == ByClients {
		r.finalStep = math.Max(step, 1/answer)
	}
	var sc staircase
	target := func(k int) float64 { return r.boundFinal(s, s.round(answer*math.Pow(1+step, float64(k)))) }
	if s.by == ByClients {
		target = func(k int) float64 { return r.boundFinal(s, math.Max(1, answer+float64(k))) }
	}
	for {
		x := target(sc.k)
		st, err := r.experiment(ctx, "final", x, r.opts.SLADuration, 0)
		if errors.Is(err, errBudget) {
			r.decideFinal(s, answer)
			r.finalBudget(s)
			return nil
		}
		if err != nil {
			r.decideFinal(s, answer) // interrupted: what the runs so far support
			return err
		}
		r.res.Found = true
		if r.finalsDone() {
			break
		}
		sc.step(st.Pass)
	}
	r.decideFinal(s, answer)
	return nil
}

// staircase is where the final runs stand on their grid: k steps from the
// search's answer.
type staircase struct {
	k       int
	runs    int
	repeats int  // runs in a row with the last one's outcome, beyond the first
	last    bool // the last run's outcome
	turned  bool // the outcome has changed once
}

// step moves after a run: up after a pass, down after a failure, by 1 grid
// step, or 2 and 4 while the outcome repeats; once it has turned, by 2
// only after three of a kind and 4 after five (runs near the point are
// what place it: doubling there swung the staircase past it and back,
// never doubling walked a lucky first run's staircase down one step at a
// time).
func (sc *staircase) step(pass bool) {
	if sc.runs > 0 && pass != sc.last {
		sc.turned, sc.repeats = true, 0
	} else if sc.runs > 0 {
		sc.repeats++
	}
	sc.runs++
	sc.last = pass
	d := 1 << min(sc.repeats, 2)
	if sc.turned {
		d = 1
		switch {
		case sc.repeats >= 4:
			d = 4
		case sc.repeats >= 2:
			d = 2
		}
	}
	if pass {
		sc.k += d
	} else {
		sc.k -= d
	}
}

// boundFinal keeps a final target within the search's bounds.
func (r *rater) boundFinal(s *searcher, x float64) float64 {
	if s.max > 0 && x > s.max {
		x = s.max
	}
	return math.Max(x, s.min)
}

// atBound tells whether the staircase stands at a bound it cannot pass:
// at the search's upper bound with a majority of runs there passing and
// none failing anywhere, or at the lowest target with every run failing.
func (r *rater) atBound(s *searcher, x float64, pass bool) bool {
	passes, fails := 0, 0
	for _, t := range r.finals {
		if t.Pass {
			passes++
		} else {
			fails++
		}
	}
	switch {
	case pass && s.max > 0 && x >= s.max:
		at := 0
		for _, t := range r.finals {
			if t.Target >= s.max && t.Pass {
				at++
			}
		}
		return fails == 0 && float64(at) >= r.opts.votesPer()
	case !pass && x <= s.min:
		return passes == 0
	}
	return false
}

// fitFinals fits the pass point to the final runs (ok: they both passed
// and failed), at the staircase's resolution.
func (r *rater) fitFinals() (analysis.PassPoint, bool) {
	return analysis.FitPassPoint(r.finals, r.finalStep)
}

// finalsDone tells whether the final runs are done: maxFinals of them; or
// at least minFinals, passes and failures among them, and the pass
// point's band within half the precision; or the staircase at a bound it
// cannot pass (atBound).
func (r *rater) finalsDone() bool {
	n := len(r.finals)
	switch {
	case n >= maxFinals:
		return true
	case n == 0:
		return false
	}
	if last := r.finals[n-1]; r.srch != nil && r.atBound(r.srch, last.Target, last.Pass) {
		return true
	}
	if n < minFinals {
		return false
	}
	p, ok := r.fitFinals()
	return ok && !analysis.SpreadWider(p.Relative, r.opts.Precision/2)
}

// decideFinal sets the answer from the final runs: their pass point when
// they both passed and failed; the highest when every one passed; the
// lowest tried, unconfirmed, when every one failed; the search's answer,
// unconfirmed, when none ran.
func (r *rater) decideFinal(s *searcher, searched float64) {
	hiPass, loFail := 0.0, math.Inf(1)
	for _, t := range r.finals {
		if t.Pass {
			hiPass = math.Max(hiPass, t.Target)
		} else {
			loFail = math.Min(loFail, t.Target)
		}
	}
	p, ok := r.fitFinals()
	switch {
	case ok:
		r.res.Final = &p
		r.res.Answer, r.res.Confirmed = s.round(p.Mid), true
	case hiPass > 0:
		r.res.Answer, r.res.Confirmed = hiPass, true
	case len(r.finals) > 0:
		r.res.Answer = loFail
	default:
		r.res.Found, r.res.Answer = true, searched
	}
	if !math.IsInf(loFail, 1) {
		r.res.AtMax = false // a final run failed: below the bound
	}
}

// finalBudget records where the budget stopped the final runs: the pass
// point's band, else the highest pass and the lowest failure among them,
// else the search's bracket.
func (r *rater) finalBudget(s *searcher) {
	if p := r.res.Final; p != nil {
		r.budgetStopped(p.Low, p.High)
		r.res.Budget.Band, r.res.Budget.Finals = true, len(r.finals)
		return
	}
	// Every final run passed: from the highest to the search's failure;
	// every one failed: none passed at full length, the lowest failure.
	lo, hi := s.lo, s.hi
	for _, t := range r.finals {
		if t.Pass {
			lo = math.Max(lo, t.Target)
		} else {
			lo, hi = 0, math.Min(hi, t.Target)
		}
	}
	r.budgetStopped(lo, hi)
	r.res.Budget.Finals = len(r.finals)
}

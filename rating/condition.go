package rating

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/measure"
)

// The store's condition is part of the experiment: a restore that is
// logically exact can leave the physical state (PostgreSQL's dead tuples,
// bloat and statistics; an LSM's levels and compaction debt) elsewhere than
// the load left it, and the store's capacity follows the physical state.
// Measured on PostgreSQL with autovacuum on (issue 32): a second snapshot
// rating on what the first left failed at 32,000 and 24,000 ops/s where
// the first had passed 32,000 and 48,000. So after each settle, a store
// that can (driver.Conditioner) measures its condition; the first
// measurement (after the load settled) is the reference, and every later
// step's drift from it is stored with the step. A failure on a store that
// drifted beyond the tolerance says nothing about the target: the step is
// inconclusive and is run again (as when dbrig itself was late).

// Drift tolerances: a figure in a unit of size (bytes, rows, files) may
// move this much relative to the reference; a share (driver.UnitShare)
// this much in absolute terms (5 points of dead tuples).
const (
	DriftTolerance      = 0.15
	DriftShareTolerance = 0.05
)

// Drift is how far a step's store condition lay from the reference (the
// condition after the first load settled): the figure that moved most
// relative to its tolerance.
type Drift struct {
	Figure string  `json:"figure"`
	From   float64 `json:"from"`
	To     float64 `json:"to"`
	Unit   string  `json:"unit"`
	// Change is (To − From) / From, or To − From for a share.
	Change  float64 `json:"change"`
	Drifted bool    `json:"drifted"` // beyond the tolerance
}

// drift compares cond with the reference ref (nil: nothing to compare).
// A figure of size whose reference is 0 has no relative change and is
// left out (a share says what matters there: dead tuples, compaction debt).
func drift(ref, cond driver.Condition) *Drift {
	if len(ref) == 0 || len(cond) == 0 {
		return nil
	}
	var worst *Drift
	score := -1.0
	for _, f := range cond {
		var from driver.Figure
		found := false
		for _, r := range ref {
			if r.Name == f.Name {
				from, found = r, true
			}
		}
		if !found {
			continue
		}
		d := Drift{Figure: f.Name, From: from.Value, To: f.Value, Unit: f.Unit}
		tol := DriftTolerance
		switch {
		case f.Unit == driver.UnitShare:
			d.Change, tol = f.Value-from.Value, DriftShareTolerance
		case from.Value == 0:
			continue
		default:
			d.Change = (f.Value - from.Value) / math.Abs(from.Value)
		}
		d.Drifted = math.Abs(d.Change) > tol+1e-12
		if s := math.Abs(d.Change) / tol; s > score {
			score, worst = s, &d
		}
	}
	return worst
}

// String says how the condition moved, e.g. "table_bytes +23% (120.0 MB →
// 147.6 MB)" or "dead_share +6.1 points".
func (d *Drift) String() string {
	if d.Unit == driver.UnitShare {
		return fmt.Sprintf("%s %+.1f points (%.1f%% → %.1f%%)", d.Figure, d.Change*100, d.From*100, d.To*100)
	}
	return fmt.Sprintf("%s %+.0f%% (%s → %s)", d.Figure, d.Change*100, figure(d.From, d.Unit), figure(d.To, d.Unit))
}

func figure(v float64, unit string) string {
	if unit == "bytes" {
		return fmt.Sprintf("%.1f MB", v/1e6)
	}
	return strings.TrimSpace(format.Int(int64(v)) + " " + unit)
}

// condition measures the store's condition on db (opened for the settle)
// into st, and its drift from the rating's reference: the first condition
// measured.
func (r *rater) condition(ctx context.Context, db driver.DB, st *Step) {
	var cond driver.Condition
	switch {
	case r.opts.condition != nil: // tests: the queue model's store
		cond = r.opts.condition()
	case r.conditioner:
		c, err := db.(driver.Conditioner).Condition(ctx, r.table)
		if err != nil {
			r.hooks.Warn(fmt.Errorf("the store's condition before the %s experiment: %w", st.Kind, err))
			return
		}
		cond = c
	}
	if len(cond) == 0 {
		return
	}
	st.Condition = cond
	if r.res.Condition == nil {
		r.res.Condition = &ConditionSummary{Reference: cond}
		return
	}
	st.Drift = drift(r.res.Condition.Reference, cond)
}

// ConditionSummary is what a rating says about the store's condition: the
// reference (after the first load settled), the largest drift any step
// saw, and how many steps ran on a store that had drifted beyond the
// tolerance.
type ConditionSummary struct {
	Reference driver.Condition `json:"reference"`
	MaxDrift  *Drift           `json:"max_drift,omitempty"`
	Drifted   int              `json:"drifted_steps"`
}

// note adds a step's drift to the summary.
func (c *ConditionSummary) note(d *Drift) {
	if c == nil || d == nil {
		return
	}
	if d.Drifted {
		c.Drifted++
	}
	if c.MaxDrift == nil || math.Abs(d.Change)/tolerance(d) > math.Abs(c.MaxDrift.Change)/tolerance(c.MaxDrift) {
		c.MaxDrift = d
	}
}

func tolerance(d *Drift) float64 {
	if d.Unit == driver.UnitShare {
		return DriftShareTolerance
	}
	return DriftTolerance
}

// describe says when the condition drifted and by how much ("" if it
// never did beyond the tolerance).
func (c *ConditionSummary) describe() string {
	if c == nil || c.Drifted == 0 {
		return ""
	}
	return fmt.Sprintf("the store's condition drifted from what the load left in %d steps (most: %s; tolerance ±%.0f%%, ±%.0f points for shares): failures there were repeated as inconclusive",
		c.Drifted, c.MaxDrift, DriftTolerance*100, DriftShareTolerance*100)
}

// Verdicts of a step (Step.Verdict).
const (
	verdictPass         = "pass"
	verdictFail         = "fail"
	verdictInconclusive = "inconclusive"
)

// classify sets the step's verdict. A failure says nothing about the
// target when dbrig's own load generator was late (a stall of dbrig on a
// busy machine: dispatch lag, which excludes waiting for the store) or
// when the store's condition had drifted beyond the tolerance from the
// reference: while retry allows, it is inconclusive and is repeated.
func (r *rater) classify(st *Step, sum measure.Summary, retry bool) {
	switch {
	case st.Kind == KindProbe || st.Kind == KindReference:
		st.Verdict = ""
		return
	case st.Pass:
		st.Verdict = verdictPass
		return
	}
	st.Verdict = verdictFail
	if !retry {
		return
	}
	why := r.generatorLate(sum)
	if why == "" && st.Drift != nil && st.Drift.Drifted {
		why = "the store's condition drifted: " + st.Drift.String()
	}
	if why != "" {
		st.Inconclusive, st.Why, st.Verdict = true, why, verdictInconclusive
		st.Reason = "inconclusive, repeated: " + why + "; " + st.Reason
	}
}

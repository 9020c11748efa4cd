package rating

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
)

// A budget that cannot reach the precision: the 2,000 ops/s model rated
// from 500 ops/s to 1 %, 1 s warmups and 2 s experiments, each after a
// 1 s reset, in virtual time, with 40 s. The search stops when its next
// experiment and the final run would not fit, confirms its highest pass,
// and says which bracket it reached; the rating ends within the budget.
func TestVirtualBudgetStopsWithTheBracket(t *testing.T) {
	t.Parallel()
	m := &qmodel{capacity: 2000, clock: newVclock(), reset: time.Second}
	r := qrate(t, m, filepath.Join(t.TempDir(), "r.db"), Options{Start: 500, Precision: 0.01, Budget: 40 * time.Second})
	b := r.Budget
	if !b.Stopped || b.Low == 0 || b.High <= b.Low || b.Reached <= 0.01 {
		t.Fatalf("budget %+v: want the search stopped with a bracket wider than the precision", b)
	}
	if r.Time.TotalS > 40 {
		t.Errorf("the rating took %.1f s of a 40 s budget", r.Time.TotalS)
	}
	if !r.Found || r.Answer != b.Low {
		t.Errorf("answer %.0f (found %v), want the highest pass %.0f", r.Answer, r.Found, b.Low)
	}
	// The bracket is what the search decided: a pass, and a target a
	// majority of runs failed (a target the budget left undecided between
	// them does not count).
	fails := map[float64]int{}
	passed := false
	for _, st := range r.Steps {
		if st.Kind == "search" && st.Verdict == verdictFail {
			fails[st.Target]++
		}
		passed = passed || st.Kind == "search" && st.Pass && st.Target == b.Low
	}
	if !passed || fails[b.High] < 2 {
		t.Errorf("bracket %.0f … %.0f: want a search pass and a target failed by a majority (%v)", b.Low, b.High, fails)
	}
	if last := r.Steps[len(r.Steps)-1]; last.Kind != "final" || last.Target != b.Low {
		t.Errorf("last step %s at %.0f, want the final run at the bracket's pass %.0f", last.Kind, last.Target, b.Low)
	}
	if iv := r.Interval; iv == nil || !iv.Wider || iv.Low != b.Low || iv.High != b.High {
		t.Errorf("interval %+v: want %.0f … %.0f, wider than the precision", iv, b.Low, b.High)
	}
	msg := (&rater{opts: Options{By: ByRate, Precision: 0.01}, res: r}).message()
	if !strings.Contains(msg, "the budget of 40s stopped the rating between") {
		t.Errorf("message %q: want the budget's bracket", msg)
	}
}

// A budget smaller than the least a rating needs is refused before
// anything runs.
func TestBudgetTooSmallIsBadInput(t *testing.T) {
	t.Parallel()
	m := &qmodel{capacity: 2000}
	o := m.options(filepath.Join(t.TempDir(), "r.db"), Options{SLA: mustSLA(t, "p95<50ms"), Step: 2 * time.Second, SLADuration: 3 * time.Second, Budget: 5 * time.Second})
	_, err := Rate(context.Background(), o, Hooks{})
	if !experiment.IsInput(err) || !strings.Contains(err.Error(), "--budget 5s: a rating with these settings needs at least") {
		t.Errorf("err %v, want bad input naming the least budget", err)
	}
	if m.n != 0 {
		t.Errorf("%d experiments ran", m.n)
	}
}

// The up-front estimate and the live ETA: after each step the time spent
// grows, spent + left stays near the rating's real total, and the last
// step leaves nothing. The up-front estimate of the experiments lies
// within a factor of two of what they took.
func TestVirtualEstimateAndETA(t *testing.T) {
	t.Parallel()
	m := &qmodel{capacity: 2000, clock: newVclock(), reset: time.Second}
	var seen []Progress
	o := m.options(filepath.Join(t.TempDir(), "r.db"), Options{SLA: mustSLA(t, "p95<50ms"), Step: 2 * time.Second, SLADuration: 3 * time.Second, NoEarlyStop: true})
	r, err := Rate(context.Background(), o, Hooks{Progress: func(p Progress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(r.Steps) {
		t.Fatalf("%d progress reports for %d steps", len(seen), len(r.Steps))
	}
	total := time.Duration(r.Time.TotalS * float64(time.Second))
	for i, p := range seen {
		if i > 0 && p.Elapsed <= seen[i-1].Elapsed {
			t.Errorf("step %d: %v spent after %v", i, p.Elapsed, seen[i-1].Elapsed)
		}
		if eta := p.Elapsed + p.Left; i > 0 && (eta < total/2 || eta > 2*total) {
			t.Errorf("after step %d (%s %.0f): %s, the rating took %v: want spent + left within a factor of two", i, r.Steps[i].Kind, r.Steps[i].Target, p.Line(), total)
		}
	}
	if last := seen[len(seen)-1]; last.Left != 0 || last.Elapsed != total {
		t.Errorf("after the last step: %s, want nothing left of %v", last.Line(), total)
	}
	b, took := r.Budget, r.Time.ExperimentsS+r.Time.FinalS
	if b.EstimateExperiments == 0 || b.EstimateS < took/2 || b.EstimateS > 2*took {
		t.Errorf("up-front estimate %d experiments, %.1f s; they took %.1f s in %d steps", b.EstimateExperiments, b.EstimateS, took, len(r.Steps))
	}
}

// A budget that runs out in the final runs (they search down at full
// length after a long final run failed) stops with the bracket the final
// runs reached, the answer unconfirmed.
func TestVirtualBudgetStopsTheFinalRuns(t *testing.T) {
	t.Parallel()
	m := &qmodel{capacity: 2000, clock: newVclock(), reset: time.Second, stallAt: 2500 * time.Millisecond, stallFor: 150 * time.Millisecond}
	r := qrate(t, m, filepath.Join(t.TempDir(), "r.db"), Options{Step: time.Second, SLADuration: 6 * time.Second, Start: 1000, Precision: 0.2, Warmup: -1, Budget: 30 * time.Second})
	b := r.Budget
	if !b.Stopped || b.Low == 0 || b.High == 0 || r.Time.TotalS > 30 {
		t.Fatalf("budget %+v after %.1f s: want the final runs stopped with a bracket, within 30 s", b, r.Time.TotalS)
	}
	if last := r.Steps[len(r.Steps)-1]; last.Kind != "final" || r.Confirmed {
		t.Errorf("last step %s, confirmed %v: want the final runs cut short, unconfirmed", last.Kind, r.Confirmed)
	}
	msg := (&rater{opts: Options{By: ByRate, Precision: 0.2}, res: r}).message()
	if !strings.Contains(msg, "the budget of 30s stopped the rating between") {
		t.Errorf("message %q", msg)
	}
}

package rating

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
)

// A budget that cannot reach the precision: the 2,000 ops/s model rated
// from 500 ops/s to 1 %, 1 s warmups and 2 s experiments, each after a
// 1 s reset, in virtual time, with 70 s. The search stops when its next
// experiment and the least final runs would not fit, with the bracket it
// has (a pass and a target a majority failed, more than 1 % apart); the
// final runs start at the pass, in the time kept for them, and the budget
// ends them too; the rating ends within the budget, its answer their pass
// point, and says the band they reached.
func TestVirtualBudgetStopsWithTheBracket(t *testing.T) {
	t.Parallel()
	m := &qmodel{capacity: 2000, clock: newVclock(), reset: time.Second}
	r := qrate(t, m, filepath.Join(t.TempDir(), "r.db"), Options{Start: 500, Precision: 0.01, Budget: 70 * time.Second})
	if r.Time.TotalS > 70 {
		t.Errorf("the rating took %.1f s of a 70 s budget", r.Time.TotalS)
	}
	votes := map[float64]int{}
	pass := 0.0
	for _, st := range r.Steps {
		if st.Kind == "search" && st.Verdict == verdictFail {
			votes[st.Target]++
		}
		if st.Kind == "search" && st.Pass {
			pass = max(pass, st.Target)
		}
	}
	fail := math.Inf(1)
	for x, n := range votes {
		if n >= 2 && x > pass {
			fail = min(fail, x)
		}
	}
	if pass == 0 || fail-pass <= 0.01*pass || searchAnswer(r) != pass {
		t.Errorf("search: pass %.0f, majority failure %.0f, final runs from %.0f: want a bracket wider than 1 %%, the final runs from its pass", pass, fail, searchAnswer(r))
	}
	b, p := r.Budget, r.Final
	if !b.Stopped || b.Finals < minFinals || !b.Band || p == nil || b.Low != p.Low || b.High != p.High || b.Reached <= 0.01 {
		t.Fatalf("budget %+v, pass point %+v: want the final runs stopped with the pass point's band, wider than the precision", b, p)
	}
	if !r.Found || !r.Confirmed || r.Answer < p.Low || r.Answer > p.High {
		t.Errorf("answer %.0f (found %v, confirmed %v): want the pass point", r.Answer, r.Found, r.Confirmed)
	}
	if iv := r.Interval; iv == nil || !iv.Wider || iv.Low > p.Low || iv.High < p.High {
		t.Errorf("interval %+v: want it to hold the band %.0f … %.0f, wider than the precision", iv, p.Low, p.High)
	}
	msg := (&rater{opts: Options{By: ByRate, Precision: 0.01}, res: r}).message()
	if !strings.Contains(msg, "the budget of 1m10s ended the final runs after") {
		t.Errorf("message %q: want the final runs' band", msg)
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

// A budget that runs out in the final runs (they step down at full length
// after long final runs failed below the search's answer) stops them with
// the band they reached, the answer their pass point.
func TestVirtualBudgetStopsTheFinalRuns(t *testing.T) {
	t.Parallel()
	m := &qmodel{capacity: 2000, clock: newVclock(), reset: time.Second, stallAt: 2500 * time.Millisecond, stallFor: 150 * time.Millisecond}
	r := qrate(t, m, filepath.Join(t.TempDir(), "r.db"), Options{Step: time.Second, SLADuration: 6 * time.Second, Start: 1000, Precision: 0.2, Warmup: -1, Budget: 80 * time.Second})
	b := r.Budget
	if !b.Stopped || b.Finals == 0 || b.Finals >= maxFinals || r.Time.TotalS > 80 {
		t.Fatalf("budget %+v after %.1f s: want the final runs stopped, within 80 s", b, r.Time.TotalS)
	}
	if last := r.Steps[len(r.Steps)-1]; last.Kind != "final" || r.Answer >= searchAnswer(r) {
		t.Errorf("last step %s, answer %.0f: want the final runs cut short below the search's %.0f", last.Kind, r.Answer, searchAnswer(r))
	}
	msg := (&rater{opts: Options{By: ByRate, Precision: 0.2}, res: r}).message()
	if !strings.Contains(msg, "the budget of 1m20s ended the final runs after") {
		t.Errorf("message %q", msg)
	}
}

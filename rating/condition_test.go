package rating

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/results"
)

func TestDrift(t *testing.T) {
	ref := driver.Condition{{Name: "table_bytes", Value: 100e6, Unit: "bytes"}, {Name: "dead_share", Value: 0, Unit: driver.UnitShare}, {Name: "l0_files", Value: 0, Unit: "files"}}
	for _, c := range []struct {
		name    string
		cond    driver.Condition
		figure  string
		change  float64
		drifted bool
	}{
		{"same", ref, "table_bytes", 0, false},
		{"grown within the tolerance", driver.Condition{{Name: "table_bytes", Value: 110e6, Unit: "bytes"}}, "table_bytes", 0.10, false},
		{"grown beyond it", driver.Condition{{Name: "table_bytes", Value: 150e6, Unit: "bytes"}, {Name: "dead_share", Value: 0.01, Unit: driver.UnitShare}}, "table_bytes", 0.5, true},
		{"shrunk beyond it", driver.Condition{{Name: "table_bytes", Value: 80e6, Unit: "bytes"}}, "table_bytes", -0.2, true},
		{"a share in points", driver.Condition{{Name: "table_bytes", Value: 100e6, Unit: "bytes"}, {Name: "dead_share", Value: 0.06, Unit: driver.UnitShare}}, "dead_share", 0.06, true},
		{"a count from 0 has no ratio", driver.Condition{{Name: "l0_files", Value: 3, Unit: "files"}, {Name: "table_bytes", Value: 101e6, Unit: "bytes"}}, "table_bytes", 0.01, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := drift(ref, c.cond)
			if d == nil || d.Figure != c.figure || d.Drifted != c.drifted || d.Change < c.change-1e-9 || d.Change > c.change+1e-9 {
				t.Errorf("drift %+v, want %s %+g drifted %v", d, c.figure, c.change, c.drifted)
			}
		})
	}
	if d := drift(nil, ref); d != nil {
		t.Errorf("no reference: drift %+v", d)
	}
}

// A store whose condition drifted before one experiment (its table 40 %
// larger, and the experiment's capacity with it 40 % lower) fails that
// experiment; the failure says nothing about the target: the step is
// inconclusive (why: the drift), repeated on a store back in condition,
// and the rating answers as it does without the drift. The drift is
// stored with the step and summed up in the rating's message.
func TestVirtualDriftedStepIsInconclusive(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "r.db")
	clean, _ := cleanRating(t)
	size := func(b float64) driver.Condition {
		return driver.Condition{{Name: "table_bytes", Value: b, Unit: "bytes"}, {Name: "dead_share", Value: 0, Unit: driver.UnitShare}}
	}
	m := &qmodel{capacity: 2000,
		cond: func(n int) driver.Condition {
			if n == 1 {
				return size(140e6)
			}
			return size(100e6)
		},
		slow: func(n int) float64 {
			if n == 1 {
				return 0.6
			}
			return 1
		}}
	r := qrate(t, m, store, Options{Start: 1000})
	if r.Answer != clean.Answer || len(r.Steps) != len(clean.Steps)+1 {
		t.Errorf("answer %.0f in %d steps, without the drift %.0f in %d: want the same and one repeat", r.Answer, len(r.Steps), clean.Answer, len(clean.Steps))
	}
	st := r.Steps[1]
	if st.Verdict != verdictInconclusive || !st.Inconclusive || st.Pass || st.Drift == nil || !st.Drift.Drifted ||
		st.Why != "the store's condition drifted: table_bytes +40% (100.0 MB → 140.0 MB)" {
		t.Fatalf("second step %+v: want an inconclusive failure, why: the drift", st)
	}
	if next := r.Steps[2]; next.Target != st.Target || next.Verdict != verdictPass {
		t.Errorf("the step after it %+v: want the same target, passing", next)
	}
	if r.Spread != nil {
		t.Errorf("spread %+v: the inconclusive run counted", r.Spread)
	}
	c := r.Condition
	if c == nil || c.Drifted != 1 || c.MaxDrift == nil || c.MaxDrift.Figure != "table_bytes" || len(c.Reference) != 2 {
		t.Fatalf("condition summary %+v: want the reference and one drifted step", c)
	}
	msg := (&rater{opts: Options{By: ByRate, Precision: 0.05}, res: r}).message()
	if !strings.Contains(msg, "the store's condition drifted from what the load left in 1 steps (most: table_bytes +40%") {
		t.Errorf("message %q: want the drift said", msg)
	}
	s, err := results.Open(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.GetRating(context.Background(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	g := got.Steps[1]
	if g.Verdict != "inconclusive" || g.InconclusiveWhy != st.Why || g.Drift == nil || *g.Drift < 0.4-1e-9 || *g.Drift > 0.4+1e-9 || g.DriftFigure != "table_bytes" ||
		len(g.Condition) != 2 || g.Condition[0].Value != 140e6 || g.Condition[0].Unit != "bytes" {
		t.Errorf("stored step %+v: want the verdict, why, condition and drift", g)
	}
	if f := got.Steps[0]; f.Drift != nil || len(f.Condition) != 2 || f.Verdict != "pass" {
		t.Errorf("stored first step %+v: want the reference condition, no drift, a pass", f)
	}
}

// The reference probe runs before the first and after the last
// experiment: the same read burst, which completed 20 % less the second
// time (the capacity moved). The rating reports both, widens its interval
// by the move, and says so first: the interval is wider than the
// precision. The probes have no verdict and are not in the spread.
func TestVirtualReferenceProbeWidensTheInterval(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "r.db")
	moved := func(target float64, nth int) float64 {
		if target == DefaultPool && nth == 1 { // the reference after the last experiment
			return 0.8
		}
		return 1
	}
	r := qrate(t, &qmodel{capacity: 2000, vary: moved}, store, Options{Start: 1000, Reference: true})
	first, last := r.Steps[0], r.Steps[len(r.Steps)-1]
	if first.Kind != KindReference || last.Kind != KindReference || first.Verdict != "" || last.Verdict != "" || first.Target != DefaultPool {
		t.Fatalf("first step %+v, last %+v: want the reference probes of the %d-client pool, without a verdict", first, last, DefaultPool)
	}
	ref := r.Reference
	if ref == nil || ref.Before != first.Achieved || ref.After != last.Achieved || ref.Moved > -0.15 || ref.Moved < -0.25 {
		t.Fatalf("reference %+v: want about −20 %%", ref)
	}
	iv := r.Interval
	if f := 1 - ref.Moved; iv == nil || !iv.Wider || iv.Low > r.Answer/f+1e-6 || iv.High < r.Answer*f-1e-6 {
		t.Fatalf("interval %+v around %.0f: want it widened by the reference's %.0f%% and wider than the precision", iv, r.Answer, ref.Moved*100)
	}
	msg := (&rater{opts: Options{By: ByRate, Precision: 0.05}, res: r}).message()
	if !strings.Contains(msg, "the reference probe completed") {
		t.Errorf("message %q: want the reference's move", msg)
	}
	if r.Spread != nil {
		t.Errorf("spread %+v: a reference probe counted", r.Spread)
	}
	s, err := results.Open(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.GetRating(context.Background(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ReferenceBefore == nil || *got.ReferenceBefore != ref.Before || got.ReferenceAfter == nil || *got.ReferenceAfter != ref.After ||
		got.IntervalLow == nil || *got.IntervalLow != iv.Low || got.IntervalHigh == nil || *got.IntervalHigh != iv.High {
		t.Errorf("stored %+v: want the reference and the interval", got)
	}
}

// Two ratings of the same data set in a row, the store 20 % slower the
// second time from its start, while each rating's own probes agree: the
// second finds the first's reference probe in the store, reports the move,
// and widens its interval by the ratio (1.25), so the two intervals
// overlap, which they would not otherwise. A rating of another data set
// (more records) compares with none.
func TestVirtualReferenceSincePreviousRating(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "r.db")
	a := qrate(t, &qmodel{capacity: 2000}, store, Options{Start: 1000, Reference: true})
	b := qrate(t, &qmodel{capacity: 1600}, store, Options{Start: 1000, Reference: true})
	ref := b.Reference
	if ref == nil || ref.PreviousRating != a.ID || ref.Previous != a.Reference.Before || ref.Since > -0.15 || ref.Since < -0.25 || math.Abs(ref.Moved) > 0.05 {
		t.Fatalf("reference %+v: want rating %d's probe (%.0f ops/s) and a move of about −20 %% since it, none within", ref, a.ID, a.Reference.Before)
	}
	f := 1 / (1 + ref.Since)
	ia, ib := a.Interval, b.Interval
	if ia == nil || ib == nil || ib.High < ib.Low*f*f*0.999 || !ib.Wider {
		t.Fatalf("intervals %+v, %+v: want the second widened by %.2f either way", ia, ib, f)
	}
	if ib.High < ia.Low || ib.High/f >= ia.Low {
		t.Errorf("intervals %.0f…%.0f and %.0f…%.0f: want them to overlap with the widening, and not without it", ia.Low, ia.High, ib.Low, ib.High)
	}
	msg := (&rater{opts: Options{By: ByRate, Precision: 0.05}, res: b}).message()
	if want := fmt.Sprintf("where rating %d of the same data set completed", a.ID); !strings.Contains(msg, want) {
		t.Errorf("message %q: want %q", msg, want)
	}
	s, err := results.Open(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.GetRating(context.Background(), b.ID)
	if err != nil || got.ReferencePreviousID != a.ID || got.ReferencePrevious == nil || *got.ReferencePrevious != a.Reference.Before || got.DatasetKey == "" {
		t.Errorf("stored %+v, %v: want the previous rating's reference and the data set's key", got, err)
	}
	c := qrate(t, &qmodel{capacity: 1600, props: []string{"recordcount=2000"}}, store, Options{Start: 1000, Reference: true})
	if c.Reference == nil || c.Reference.PreviousRating != 0 {
		t.Errorf("another data set's rating compared with rating %d", c.Reference.PreviousRating)
	}
}

// A system's rating defaults (driver.Driver.RatingProps: PostgreSQL's
// pg.autovacuum=off) are set for every experiment, unless the user gave
// the property.
func TestRatingPropsUnlessGiven(t *testing.T) {
	t.Parallel()
	reg := driver.Registry{}
	for name, d := range all.Registry() {
		reg[name] = d
	}
	sim := reg["sim"]
	sim.RatingProps = []string{"sim.latency=1ms"}
	reg["sim"] = sim
	for _, c := range []struct {
		given []string
		want  string
	}{{nil, "1ms"}, {[]string{"sim.latency=2ms"}, "2ms"}} {
		m := &qmodel{capacity: 2000}
		// One search experiment and the final run: the props are under test.
		o := m.options(filepath.Join(t.TempDir(), "r.db"), Options{SLA: mustSLA(t, "p95<50ms"), Step: 2 * time.Second, SLADuration: 3 * time.Second, Start: 1000, Max: 1000})
		o.Base.Registry = reg
		o.Base.Props = append(o.Base.Props, c.given...)
		if _, err := Rate(context.Background(), o, Hooks{}); err != nil {
			t.Fatal(err)
		}
		if len(m.plans) < 2 {
			t.Fatalf("given %v: %d experiments, want the search's and the final run", c.given, len(m.plans))
		}
		for i, p := range m.plans {
			if v, _, _ := p.Props.Lookup("sim.latency"); v != c.want {
				t.Errorf("given %v: experiment %d ran with sim.latency=%q, want %s", c.given, i, v, c.want)
			}
		}
	}
}

// A step's line says inconclusive with why, not FAIL; a pass on a drifted
// store says the drift.
func TestStepLineInconclusive(t *testing.T) {
	d := &Drift{Figure: "table_bytes", From: 100e6, To: 140e6, Unit: "bytes", Change: 0.4, Drifted: true}
	late := Step{Kind: "search", Target: 2000, Inconclusive: true, Verdict: verdictInconclusive, Why: "dbrig's load generator was late (dispatch lag p95 30ms, half the limit is 25ms)", StoppedEarly: true, RunID: 4}
	if l := late.Line(ByRate); !strings.Contains(l, "search 2,000 ops/s: inconclusive (dbrig's load generator was late (dispatch lag p95 30ms, half the limit is 25ms)), repeated") || strings.Contains(l, "FAIL") {
		t.Errorf("line %q", l)
	}
	pass := Step{Kind: "search", Target: 2000, Pass: true, Verdict: verdictPass, Drift: d}
	if l := pass.Line(ByRate); !strings.Contains(l, ": pass") || !strings.HasSuffix(l, "; store condition drifted: table_bytes +40% (100.0 MB → 140.0 MB)") {
		t.Errorf("line %q", l)
	}
}

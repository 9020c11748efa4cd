package rating

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/machine"
	"github.com/dbrig/dbrig/results"
)

func TestUnloaded(t *testing.T) {
	for _, tc := range []struct{ s, want float64 }{
		{0, 1}, {0.2, 1 / 0.64}, {0.5, 4}, {0.51, 0}, {1, 0},
	} {
		if got := unloaded(tc.s); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("g(%.2f) = %.4f, want %.4f", tc.s, got, tc.want)
		}
	}
}

// loaded is the queue model of a store on a machine that other processes
// keep busy by the share s, as the Pebble pair of issue 32 behaved: the
// capacity falls by (1 − s)^1.45 (3.2× of the read burst, 5.4× of the
// answer).
func loaded(s float64) *qmodel {
	return &qmodel{capacity: 2000 * math.Pow(1-s, 1.45)}
}

func others(s float64) func() (float64, int) { return func() (float64, int) { return s, 2 } }

func storedRating(t *testing.T, store string, id int64) results.Rating {
	t.Helper()
	s, err := results.Open(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.GetRating(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Two ratings in a row, the machine busy (others held 40 %) during the
// first and quiet (5 %) during the second: the answers differ by far more
// than the precision, but each interval reaches the store's capacity on
// the machine unloaded, so they overlap; without the machine's load they
// do not. The busy one says it is wider than the precision.
func TestVirtualMachineChangesBetweenTwoRatings(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "r.db")
	busy := qrate(t, loaded(0.4), store, Options{Start: 500, MachineLoad: true, others: others(0.4)})
	quiet := qrate(t, loaded(0.05), store, Options{Start: 500, MachineLoad: true, others: others(0.05)})
	bi, qi := busy.Interval, quiet.Interval
	if bi == nil || qi == nil {
		t.Fatalf("intervals %+v, %+v: want both", bi, qi)
	}
	if quiet.Answer < 1.5*busy.Answer {
		t.Fatalf("answers %.0f (busy) and %.0f (quiet): the model should differ by more than 1.5×", busy.Answer, quiet.Answer)
	}
	if bi.High < qi.Low || qi.High < bi.Low {
		t.Errorf("busy %.0f … %.0f and quiet %.0f … %.0f: want them to overlap", bi.Low, bi.High, qi.Low, qi.High)
	}
	if math.Abs(bi.Machine-1/0.36) > 1e-9 || !bi.Wider || bi.Unbounded {
		t.Errorf("busy interval %+v: want the factor 1/(1−0.4)² = 2.78, wider than the precision, bounded", bi)
	}
	// The same failures, not raised: the intervals as they were before.
	if raw := bi.High / bi.Machine; raw >= qi.Low {
		t.Errorf("busy interval's high end as run %.0f: the test needs it below the quiet one's low end %.0f", raw, qi.Low)
	}
	l := busy.Load
	if l == nil || l.Cores != 2 || l.Windows != len(busy.Steps) || math.Abs(l.Mean-0.4) > 1e-9 || l.Max != 0.4 || l.Busy {
		t.Errorf("load %+v: want 2 cores, one window per step (%d), 40 %% mean and max, not too busy", l, len(busy.Steps))
	}
	if msg := (&rater{opts: Options{By: ByRate, Precision: 0.05}, res: busy}).message(); !strings.Contains(msg, "other processes kept 40% of this machine's 2 cores busy") {
		t.Errorf("message %q: want the load", msg)
	}
	got := storedRating(t, store, busy.ID)
	if got.OthersMean == nil || math.Abs(*got.OthersMean-0.4) > 1e-9 || got.OthersMax == nil || *got.OthersMax != 0.4 || got.Cores != 2 ||
		got.IntervalHigh == nil || *got.IntervalHigh != bi.High || got.IntervalUnbounded {
		t.Errorf("stored rating %+v: want the load and the raised interval", got)
	}
	for i, st := range got.Steps {
		if st.Others == nil || *st.Others != 0.4 {
			t.Errorf("stored step %d: others %v, want 0.4", i, st.Others)
		}
	}
}

// Other processes held 70 % of the machine before every experiment: no
// failure bounds the store's capacity on it unloaded. The interval has no
// upper bound, is wider than any precision, and is stored so.
func TestVirtualMachineTooBusy(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "r.db")
	r := qrate(t, loaded(0.7), store, Options{Start: 100, MachineLoad: true, others: others(0.7)})
	iv := r.Interval
	if iv == nil || !iv.Unbounded || !iv.Wider || iv.Machine != 0 || iv.High <= r.Answer {
		t.Fatalf("interval %+v: want unbounded, wider, its high end the lowest failure above %.0f", iv, r.Answer)
	}
	if !r.Load.Busy {
		t.Errorf("load %+v: want busy", r.Load)
	}
	var fail Step
	for _, st := range r.Steps {
		if st.Verdict == verdictFail {
			fail = st
		}
	}
	if line := fail.Line(ByRate); !strings.Contains(line, "too busy: this failure bounds nothing") {
		t.Errorf("step line %q: want the failure marked", line)
	}
	got := storedRating(t, store, r.ID)
	if !got.IntervalUnbounded || got.OthersMax == nil || *got.OthersMax != 0.7 {
		t.Errorf("stored %+v: want unbounded, others at most 0.7", got)
	}
}

// The load differs from step to step: the interval's high end is the
// lowest failure raised by its own step's factor, and a failure on a
// machine too busy is skipped.
func TestIntervalRaisesEachFailureByItsLoad(t *testing.T) {
	s := func(v float64) *float64 { return &v }
	steps := []Step{
		{Kind: "search", Target: 1000, Verdict: verdictPass, Others: s(0.1)},
		{Kind: "search", Target: 1200, Verdict: verdictFail, Others: s(0.9)}, // bounds nothing
		{Kind: "search", Target: 1600, Verdict: verdictFail, Others: s(0.2)}, // 2,500
		{Kind: "search", Target: 2000, Verdict: verdictFail, Others: s(0)},   // 2,000: the bound
		{Kind: "final", Target: 1000, Verdict: verdictPass, Others: s(0.3)},
	}
	r := &rater{opts: Options{Precision: 0.05}, res: &Rating{Found: true, Answer: 1000, Steps: steps, Load: &MachineLoad{}}}
	iv := r.interval()
	if iv.Low != 1000 || iv.High != 2000 || iv.Machine != 1 || iv.Unbounded || iv.Open {
		t.Errorf("interval %+v: want 1,000 … 2,000, factor 1", iv)
	}
	steps[3].Others = s(0.6) // now too busy as well: 1,600 × 1.5625
	if iv = r.interval(); math.Abs(iv.High-2500) > 1e-9 || math.Abs(iv.Machine-1/0.64) > 1e-9 {
		t.Errorf("interval %+v: want 1,000 … 2,500, factor 1.5625", iv)
	}
	steps[2].Others = s(0.55)
	if iv = r.interval(); !iv.Unbounded || iv.High != 1200 || !iv.Wider {
		t.Errorf("interval %+v: want unbounded, as run up to 1,200", iv)
	}
}

// The interval widens by the machine's measured unsteadiness (1 + the
// coefficient of variation of its cache-bound work) and by the reference
// probe's move, the two factors multiplied: independent sources.
func TestIntervalWidensByTheMachinesSteadiness(t *testing.T) {
	steps := []Step{
		{Kind: "search", Target: 1000, Verdict: verdictPass},
		{Kind: "search", Target: 1100, Verdict: verdictFail},
		{Kind: "final", Target: 1000, Verdict: verdictPass},
	}
	res := &Rating{Found: true, Answer: 1000, Steps: steps, Machine: &machine.Steadiness{Cache: machine.Variation{CV: 0.1}}}
	r := &rater{opts: Options{Precision: 0.05}, res: res}
	iv := r.interval()
	if math.Abs(iv.Low-1000/1.1) > 1e-9 || math.Abs(iv.High-1100*1.1) > 1e-9 || iv.Steadiness != 1.1 || iv.ReferenceFactor != 0 || !iv.Wider {
		t.Errorf("interval %+v: want 909 … 1,210 (×1.1 either way), wider than 5%%", iv)
	}
	res.Reference = &Reference{Before: 1000, After: 800, Moved: -0.2}
	f := 1.1 * 1.25
	if iv = r.interval(); math.Abs(iv.Low-1000/f) > 1e-9 || math.Abs(iv.High-1100*f) > 1e-9 || iv.ReferenceFactor != 1.25 {
		t.Errorf("interval %+v: want ×%.3f either way (1.1 × 1.25)", iv, f)
	}
	res.Machine, res.Reference = nil, nil
	if iv = r.interval(); iv.Low != 1000 || iv.High != 1100 || iv.Steadiness != 0 {
		t.Errorf("interval %+v: want the runs' 1,000 … 1,100 without a measurement", iv)
	}
	msg := (&rater{opts: Options{By: ByRate, Precision: 0.05}, res: &Rating{Found: true, Confirmed: true, Answer: 1000,
		Machine: &machine.Steadiness{Cache: machine.Variation{CV: 0.1}}}}).message()
	if !strings.Contains(msg, "the interval is widened by it (×1.10 either way)") {
		t.Errorf("message %q: want the widening said", msg)
	}
}

// The real measurement: two readings MachineWindow apart, the process's
// own CPU time left out.
func TestMachineLoadReadsTheCounters(t *testing.T) {
	t.Parallel()
	readings := []machine.CPU{{Cores: 2, Total: 1000, Busy: 500, Self: 100}, {Cores: 2, Total: 1060, Busy: 545, Self: 115}}
	n := 0
	r := &rater{opts: Options{MachineLoad: true, cpu: func() (machine.CPU, error) { n++; return readings[n-1], nil }}, res: &Rating{}}
	var st Step
	if err := r.machineLoad(context.Background(), &st); err != nil {
		t.Fatal(err)
	}
	if st.Others == nil || math.Abs(*st.Others-0.5) > 1e-12 || r.res.Load.Cores != 2 || r.res.Load.Windows != 1 {
		t.Errorf("others %v, load %+v: want (45 − 15) / 60 = 50 %% of 2 cores", st.Others, r.res.Load)
	}
}

// The budget stopped the final runs: its bracket's failure is a final
// target run while the machine was too busy, as measured on PostgreSQL
// (repair, p95<50ms, others at 100 %): it bounds nothing either, and a
// bracket's failure at or below the answer is no upper end.
func TestIntervalBudgetFailureOnABusyMachine(t *testing.T) {
	s := func(v float64) *float64 { return &v }
	steps := []Step{
		{Kind: "search", Target: 8000, Verdict: verdictPass, Others: s(1)},
		{Kind: "search", Target: 12000, Verdict: verdictPass, Others: s(1)},
		{Kind: "final", Target: 12000, Verdict: verdictFail, Others: s(1)},
		{Kind: "final", Target: 10800, Verdict: verdictFail, Others: s(0.98)},
	}
	res := &Rating{Found: true, Answer: 10800, Steps: steps, Load: &MachineLoad{Max: 1},
		Budget: &Budget{Stopped: true, Low: 12000, High: 10800}}
	r := &rater{opts: Options{Precision: 0.1}, res: res}
	if iv := r.interval(); !iv.Unbounded || iv.Machine != 0 || iv.High != 12000 {
		t.Errorf("interval %+v: want unbounded (every failure too busy), as run up to 12,000", iv)
	}
	res.Budget.High = 13000 // above the answer, a final target on a machine at 20 %
	res.Steps = append(res.Steps, Step{Kind: "final", Target: 13000, Verdict: verdictFail, Others: s(0.2)})
	if iv := r.interval(); iv.Unbounded || math.Abs(iv.High-13000/0.64) > 1e-6 {
		t.Errorf("interval %+v: want bounded by 13,000 / 0.64", iv)
	}
}

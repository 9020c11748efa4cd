package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// iv is an interval row of op ending at sec seconds, one second long.
func iv(sec float64, op string, count int64, p99 int64) results.IntervalRow {
	return results.IntervalRow{T: time.Duration(sec * float64(time.Second)), Length: time.Second, Op: op, Count: count, P99US: p99}
}

// nums makes the expected values of a line; NaN is a gap.
func nums(v ...float64) []Num {
	out := make([]Num, len(v))
	for i, f := range v {
		out[i] = Num(f)
	}
	return out
}

func sameNums(a, b []Num) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		if !(x == y || math.IsNaN(x) && math.IsNaN(y)) {
			return false
		}
	}
	return true
}

func TestTimeAxis(t *testing.T) {
	a := Run{Intervals: []results.IntervalRow{iv(1, "OVERALL", 1, 0), iv(1, "READ", 1, 0), iv(2.0004, "OVERALL", 1, 0), iv(3, "OVERALL", 1, 0)}}
	b := Run{Intervals: []results.IntervalRow{iv(1.5, "OVERALL", 1, 0), iv(3, "OVERALL", 1, 0)}}
	// The union, sorted, each x once, rounded to the millisecond.
	if got, want := TimeAxis([]Run{a, b}), nums(1, 1.5, 2, 3); !sameNums(got, want) {
		t.Errorf("TimeAxis = %v, want %v", got, want)
	}
	if got := TimeAxis(nil); len(got) != 0 {
		t.Errorf("TimeAxis(nil) = %v, want empty", got)
	}
}

// TestAlign: the run has intervals at 1–3 s; READ completed nothing at 2 s
// (no row) and its row at 3 s counts zero. The axis also has 4 s, where
// only another run has data.
func TestAlign(t *testing.T) {
	ivs := []results.IntervalRow{
		iv(1, "OVERALL", 10, 0), iv(1, "READ", 10, 2000),
		iv(2, "OVERALL", 5, 0),
		iv(3, "OVERALL", 0, 0), iv(3, "READ", 0, 0),
	}
	x := nums(1, 2, 3, 4)
	rows := opRows(ivs, "READ")
	count := func(iv results.IntervalRow) Num { return perSecond(iv.Count, iv) }
	p99 := msOf(func(iv results.IntervalRow) int64 { return iv.P99US })
	nan := math.NaN()
	for _, tt := range []struct {
		name  string
		f     func(results.IntervalRow) Num
		runXs map[float64]bool
		want  []Num
	}{
		// A count is zero where the run was measuring, a gap where it was not.
		{"counts", count, xsOf(ivs), nums(10, 0, 0, nan)},
		// A latency has no zero: a gap without a row or without operations.
		{"latency", p99, nil, nums(2, nan, nan, nan)},
	} {
		if got := Align(x, rows, tt.f, tt.runXs); !sameNums(got, tt.want) {
			t.Errorf("%s: Align = %v, want %v", tt.name, got, tt.want)
		}
	}
	zeroLength := iv(1, "READ", 10, 0)
	zeroLength.Length = 0
	if got := perSecond(10, zeroLength); !math.IsNaN(float64(got)) {
		t.Errorf("perSecond over no time = %v, want a gap", got)
	}
}

func TestAnalyze(t *testing.T) {
	run := func(id int64, tput float64) Run {
		d := &results.RunDetail{RunRow: results.RunRow{ID: id, Start: t0, End: t0.Add(3 * time.Second)},
			Phases: []measure.Summary{phase(measure.PhaseMeasure, op("READ", 10, tput, 1000))}}
		d.Phases[0].Start = t0
		// Ten seconds around tput (±1 %): enough for a verdict on a 50 % change.
		var ivs []results.IntervalRow
		for s := 1; s <= 10; s++ {
			for _, o := range []string{"READ", "OVERALL"} {
				r := iv(float64(s), o, int64(tput*(1+float64(s%3-1)/100)), 1000)
				r.Phase = measure.PhaseMeasure
				ivs = append(ivs, r)
			}
		}
		return NewRun(d, ivs)
	}
	one := Analyze([]Run{run(1, 100)})
	if one.Deltas != nil {
		t.Errorf("one run has deltas: %+v", one.Deltas)
	}
	wantIDs := []string{"throughput-OVERALL", "latency-OVERALL", "distribution-OVERALL",
		"throughput-READ", "latency-READ", "distribution-READ", "errors"}
	if len(one.Charts) != len(wantIDs) {
		t.Fatalf("%d charts, want %d", len(one.Charts), len(wantIDs))
	}
	for i, c := range one.Charts {
		if c.ID != wantIDs[i] {
			t.Errorf("chart %d is %s, want %s", i, c.ID, wantIDs[i])
		}
	}
	three := Analyze([]Run{run(1, 100), run(2, 150), run(3, 50)})
	if len(three.Deltas) != 2 {
		t.Fatalf("%d deltas for 3 runs, want 2", len(three.Deltas))
	}
	for i, want := range []Verdict{Better, Worse} {
		o, _ := three.Deltas[i].Op("READ")
		if c := o.Change(Throughput); c.A != 100 || c.Verdict != want {
			t.Errorf("delta %d: %+v, want against the first run (100), %v", i, c, want)
		}
	}
	if l := three.Charts[0].Lines; len(l) != 3 || l[1].Label != "#2 ops/s" || !three.Charts[0].SpanGaps {
		t.Errorf("overlay lines = %+v, want one per run, labelled by id, spanning gaps", l)
	}
}

func TestShownPhase(t *testing.T) {
	m1, m2 := measure.Summary{Phase: measure.PhaseMeasure, Dropped: 1}, measure.Summary{Phase: measure.PhaseMeasure, Dropped: 2}
	warm, load := measure.Summary{Phase: measure.PhaseWarmup}, measure.Summary{Phase: measure.PhaseLoad}
	for _, tt := range []struct {
		name    string
		in      []measure.Summary
		phase   string
		dropped int64
		note    string
		ok      bool
	}{
		{"last measure phase", []measure.Summary{m1, m2, warm}, measure.PhaseMeasure, 2, "", true},
		{"load only", []measure.Summary{warm, load}, measure.PhaseLoad, 0, "no measure phase was stored; showing the load phase", true},
		{"none", nil, "", 0, "", false},
	} {
		s, note, ok := ShownPhase(tt.in)
		if s.Phase != tt.phase || s.Dropped != tt.dropped || note != tt.note || ok != tt.ok {
			t.Errorf("%s: ShownPhase = %s (dropped %d), %q, %v", tt.name, s.Phase, s.Dropped, note, ok)
		}
	}
}

func TestDistGrid(t *testing.T) {
	g := DistGrid(1000)
	// 40 points per decade from 1 up to 1000 (p99.9) inclusive.
	if len(g) != 121 || g[0] != 1 || math.Abs(float64(g[40])-10) > 1e-9 || math.Abs(float64(g[120])-1000) > 1e-9 {
		t.Errorf("DistGrid(1000): %d points, %v … %v", len(g), g[0], g[len(g)-1])
	}
	if g := DistGrid(0); len(g) != 13 || float64(g[len(g)-1]) > 2 {
		t.Errorf("DistGrid(0) reaches %v in %d points, want up to 2 (p50)", g[len(g)-1], len(g))
	}
	h := measure.NewHistogram()
	for v := int64(1); v <= 100; v++ {
		h.RecordValue(v * 1000)
	}
	y := Percentiles(h, nums(1, 2, 10, 100, 1000))
	if math.Abs(float64(y[1])-50) > 0.1 || math.Abs(float64(y[2])-90) > 0.1 || !math.IsNaN(float64(y[4])) {
		t.Errorf("Percentiles = %v, want p50 50, p90 90, …, a gap beyond the 100 values", y)
	}
}

func TestMeasurePhases(t *testing.T) {
	m1, m2 := measure.Summary{Phase: measure.PhaseMeasure, Dropped: 1}, measure.Summary{Phase: measure.PhaseMeasure, Dropped: 2}
	warm, load := measure.Summary{Phase: measure.PhaseWarmup}, measure.Summary{Phase: measure.PhaseLoad}
	if got := MeasurePhases([]measure.Summary{warm, m1, m2}); len(got) != 2 || got[0].Dropped != 1 || got[1].Dropped != 2 {
		t.Errorf("MeasurePhases = %+v, want both measure phases in order", got)
	}
	if got := MeasurePhases([]measure.Summary{warm, load}); len(got) != 2 || got[1].Phase != measure.PhaseLoad {
		t.Errorf("without a measure phase MeasurePhases = %+v, want every phase", got)
	}
}

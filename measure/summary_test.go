package measure

import (
	"math/rand/v2"
	"testing"
	"time"
)

// Summaries merged from intervals must equal a histogram of all values.
func TestSummarizeIsExactMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := NewRecorder([]string{"READ", "SCAN"})
	c := r.Shard()
	direct := NewHistogram()
	var ivs []Interval
	start := t0
	r.SetStart(start)
	for sec := 1; sec <= 5; sec++ {
		for k := 0; k < 1000; k++ {
			v := int64(rng.ExpFloat64() * 500)
			_ = direct.RecordValue(v)
			c.Record(0, t0, t0, t0.Add(us(v)), nil)
		}
		ivs = append(ivs, r.Cut(PhaseMeasure, start.Add(time.Duration(sec)*time.Second)))
	}
	// A warmup interval must not be counted in the measure summary.
	c.Record(1, t0, t0, t0.Add(time.Second), nil)
	ivs = append(ivs, r.Cut(PhaseWarmup, start.Add(6*time.Second)))

	sum := Summarize(PhaseMeasure, ivs, nil)
	if len(sum.Ops) != 1 || sum.Ops[0].Op != "READ" {
		t.Fatalf("ops = %+v, want only READ", sum.Ops)
	}
	got, want := sum.Ops[0].Response, StatsOf(direct)
	if got != want {
		t.Errorf("merged stats\n got %+v\nwant %+v", got, want)
	}
	if sum.Overall.Op != OverallOp || sum.Overall.Response != want {
		t.Errorf("overall = %+v, want %+v", sum.Overall.Response, want)
	}
	if tp := sum.Ops[0].Throughput; tp != 1000 {
		t.Errorf("throughput = %v, want 1000 (5000 ops over 5 s)", tp)
	}
	if !sum.Start.Equal(start) || !sum.End.Equal(start.Add(5*time.Second)) {
		t.Errorf("phase window %v..%v", sum.Start, sum.End)
	}
}

func TestAccumulatorOrderAndStats(t *testing.T) {
	mk := func(op string, vals ...int64) OpInterval {
		h, s := NewHistogram(), NewHistogram()
		for _, v := range vals {
			_ = h.RecordValue(v)
			_ = s.RecordValue(v / 2)
		}
		return OpInterval{Op: op, Count: int64(len(vals)), Errors: 1, Classes: map[string]int64{"timeout": 1}, Response: h, Service: s}
	}
	ivs := []Interval{
		{Phase: PhaseMeasure, Start: t0, End: t0.Add(time.Second), Ops: []OpInterval{mk("UPDATE", 100, 200)}, Dropped: 3},
		{Phase: PhaseMeasure, Start: t0.Add(time.Second), End: t0.Add(2 * time.Second), Ops: []OpInterval{mk("READ", 10), mk("UPDATE", 300)}},
	}
	a := NewAccumulator(PhaseMeasure, "READ", "UPDATE", "INSERT")
	for _, iv := range ivs {
		a.Add(iv)
	}
	sum := a.Summary(nil)
	if len(sum.Ops) != 2 || sum.Ops[0].Op != "READ" || sum.Ops[1].Op != "UPDATE" {
		t.Fatalf("ops order = %+v, want READ, UPDATE", sum.Ops)
	}
	u := sum.Ops[1]
	if u.Count != 3 || u.Errors != 2 || u.Classes["timeout"] != 2 || u.Response.Max != 300 || u.Service.Min != 50 || u.Throughput != 0.5 {
		t.Errorf("UPDATE = %+v", u)
	}
	if sum.Dropped != 3 || sum.Overall.Count != 4 || sum.Overall.Response.Min != 10 {
		t.Errorf("dropped %d overall %+v", sum.Dropped, sum.Overall)
	}
	// Summary copies histograms: adding more must not change a returned summary.
	a.Add(ivs[0])
	if sum.Ops[1].ResponseHist.TotalCount() != 3 {
		t.Errorf("returned histogram changed after Add")
	}
}

func TestStatsOfEmpty(t *testing.T) {
	if s := StatsOf(NewHistogram()); s != (Stats{}) {
		t.Errorf("empty stats = %+v", s)
	}
	if s := StatsOf(nil); s != (Stats{}) {
		t.Errorf("nil stats = %+v", s)
	}
}

// TestThroughputCountsSuccesses: a failed operation is no throughput, and a
// phase whose operations mostly failed says so.
func TestThroughputCountsSuccesses(t *testing.T) {
	tests := []struct {
		name          string
		count, errors int64
		wantTput      float64
		wantRate      float64
		wantFailed    string // "" = not mostly failed
	}{
		{"no errors", 1000, 0, 500, 0, ""},
		{"some errors", 1000, 100, 450, 0.1, ""},
		{"exactly half", 1000, 500, 250, 0.5, ""},
		{"just over half", 10000, 5004, 2498, 0.5004, "50.0% of operations failed (5004 of 10000 in the measure phase; a run fails above 50%)"},
		{"most", 184000, 175355, 4322.5, 175355.0 / 184000, "95% of operations failed (175355 of 184000 in the measure phase; a run fails above 50%)"},
		{"all but a few", 10000, 9996, 2, 0.9996, "99.9% of operations failed (9996 of 10000 in the measure phase; a run fails above 50%)"},
		{"all", 10, 10, 0, 1, "100% of operations failed (10 of 10 in the measure phase; a run fails above 50%)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHistogram()
			_ = h.RecordValue(100)
			iv := Interval{Phase: PhaseMeasure, Start: t0, End: t0.Add(2 * time.Second),
				Ops: []OpInterval{{Op: "READ", Count: tt.count, Errors: tt.errors, Response: h, Service: h}}}
			sum := Summarize(PhaseMeasure, []Interval{iv}, nil)
			if got := sum.Overall.Throughput; got != tt.wantTput {
				t.Errorf("overall throughput = %v, want %v", got, tt.wantTput)
			}
			if got := sum.Ops[0].Throughput; got != tt.wantTput {
				t.Errorf("READ throughput = %v, want %v", got, tt.wantTput)
			}
			if got := sum.Overall.ErrorRate(); got != tt.wantRate {
				t.Errorf("error rate = %v, want %v", got, tt.wantRate)
			}
			err := sum.MostlyFailed()
			switch {
			case tt.wantFailed == "" && err != nil:
				t.Errorf("MostlyFailed = %v, want nil", err)
			case tt.wantFailed != "" && (err == nil || err.Error() != tt.wantFailed):
				t.Errorf("MostlyFailed = %v, want %q", err, tt.wantFailed)
			}
		})
	}
}

package rating

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSearchFindsTheAnswer(t *testing.T) {
	tests := []struct {
		name              string
		by                string
		start, max, truth float64
		want              float64 // exact answer expected (0: within precision)
		atMax             bool
	}{
		{"grow then bisect", ByRate, 100, 0, 1234, 0, false},
		{"start above the answer", ByRate, 50000, 0, 1234, 0, false},
		{"start at the answer", ByRate, 1234, 0, 1234, 0, false},
		{"bounded above", ByRate, 100, 1000, 5000, 1000, true},
		{"clients", ByClients, 1, 0, 37, 37, false},
		{"one client", ByClients, 8, 0, 1, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSearcher(tt.by, tt.start, tt.max, 0.05)
			seen := map[float64]bool{}
			got, err := s.run(context.Background(), func(_ context.Context, x float64) (bool, error) {
				if seen[x] {
					t.Errorf("target %g tried twice", x)
				}
				seen[x] = true
				return x <= tt.truth, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got > tt.truth {
				t.Errorf("answer %g above the truth %g", got, tt.truth)
			}
			if tt.want != 0 && got != tt.want {
				t.Errorf("answer %g, want %g", got, tt.want)
			}
			if tt.want == 0 && got < tt.truth/1.05 {
				t.Errorf("answer %g further than 5%% below the truth %g", got, tt.truth)
			}
			if s.atMax != tt.atMax {
				t.Errorf("atMax = %v, want %v", s.atMax, tt.atMax)
			}
			if len(seen) > 20 {
				t.Errorf("%d experiments, want a geometric search (fewer than 20)", len(seen))
			}
		})
	}
}

func TestSearchNoAnswer(t *testing.T) {
	s := newSearcher(ByRate, 100, 0, 0.05)
	n := 0
	_, err := s.run(context.Background(), func(context.Context, float64) (bool, error) { n++; return false, nil })
	var na *NoAnswerError
	if !errors.As(err, &na) || na.Lowest != 1 {
		t.Fatalf("err = %v, want NoAnswerError at 1 op/s", err)
	}
	if n > 10 {
		t.Errorf("%d experiments to find that nothing passes", n)
	}
}

func TestSearchStopsOnError(t *testing.T) {
	boom := errors.New("boom")
	s := newSearcher(ByRate, 100, 0, 0.05)
	_, err := s.run(context.Background(), func(_ context.Context, x float64) (bool, error) {
		if x > 300 {
			return false, boom
		}
		return true, nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the probe's", err)
	}
}

func TestCheckRejects(t *testing.T) {
	good := func() Options {
		o := Options{SLADuration: 10e9}
		o.SLA.Terms = append(o.SLA.Terms, mustSLA(t, "p95<10ms").Terms...)
		return o
	}
	tests := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"by", func(o *Options) { o.By = "speed" }, "--by"},
		{"no sla", func(o *Options) { o.SLA.Terms = nil }, "no SLA"},
		{"no duration", func(o *Options) { o.SLADuration = 0 }, "--sla-duration"},
		{"precision", func(o *Options) { o.Precision = 0.9 }, "--precision"},
		{"reset", func(o *Options) { o.Reset = "magic" }, "--reset"},
		{"range", func(o *Options) { o.Start, o.Max = 1000, 10 }, "cannot contain"},
		{"steadiness too short", func(o *Options) { o.Steadiness = 100 * time.Millisecond }, "--steadiness"},
		{"clients with open", func(o *Options) { o.By = ByClients; o.Base.Model = "open" }, "closed model"},
		{"rate with closed", func(o *Options) { o.Base.Model = "closed" }, "open model"},
		{"fractional clients", func(o *Options) { o.By = ByClients; o.Start = 1.5 }, "whole numbers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := good()
			tt.edit(&o)
			err := o.check()
			if err == nil || !contains(err.Error(), tt.want) {
				t.Errorf("check() = %v, want an error about %q", err, tt.want)
			}
		})
	}
	o := good()
	if err := o.check(); err != nil || o.By != ByRate || o.Reset != ResetReload || o.Precision != DefaultPrecision || o.Step != o.SLADuration || o.Start != DefaultStartRate {
		t.Errorf("defaults: %v %+v", err, o)
	}
}

// A failure counts only by a majority of up to votes runs; a pass counts
// at once, or (both, while bisecting) by a majority too.
func TestDecide(t *testing.T) {
	for _, c := range []struct {
		votes    int
		both     bool
		outcomes string // P or F per run, in order
		pass     bool
		runs     int
	}{
		{3, false, "P", true, 1},
		{3, false, "FF", false, 2},
		{3, false, "FPP", true, 3},
		{3, false, "FPF", false, 3},
		{1, false, "F", false, 1},
		{5, false, "FPFF", false, 4},
		{5, false, "FFF", false, 3},
		{5, false, "FPPP", true, 4},
		{3, true, "PP", true, 2},
		{3, true, "PF", false, 2}, // not decided yet after two
		{3, true, "PFF", false, 3},
		{3, true, "PFP", true, 3},
		{3, true, "FF", false, 2},
		{1, true, "P", true, 1},
		{5, true, "PPFP", true, 4},
	} {
		runs := 0
		st, err := decide(c.votes, c.both, func(vote int) (Step, error) {
			if vote != runs+1 {
				t.Fatalf("votes %d %s: run %d asked as vote %d", c.votes, c.outcomes, runs+1, vote)
			}
			runs++
			if runs > len(c.outcomes) {
				if c.outcomes == "PF" { // the third run decides: a failure
					return Step{Pass: false}, nil
				}
				t.Fatalf("votes %d %s: run %d beyond the outcomes", c.votes, c.outcomes, runs)
			}
			return Step{Pass: c.outcomes[runs-1] == 'P'}, nil
		})
		want := c.runs
		if c.outcomes == "PF" {
			want = 3
		}
		if err != nil || st.Pass != c.pass || runs != want {
			t.Errorf("votes %d both %v %s: pass %v after %d runs (%v), want %v after %d", c.votes, c.both, c.outcomes, st.Pass, runs, err, c.pass, want)
		}
	}
}

// A store whose first run at each target above its capacity is lucky (a
// pass, then failures: a quiet second, then the machine's noise): with a
// pass taken at once the bisection climbs on the lucky passes; when a pass
// also needs a majority there, the answer is the capacity within the
// precision. The growth stage stays one run per pass.
func TestBisectionPassNeedsMajority(t *testing.T) {
	const truth, lucky = 1000.0, 1500.0 // lucky band (truth, lucky]; above it every run fails
	rate := func(votes int) (float64, int) {
		r := &rater{opts: Options{Votes: votes}}
		s := newSearcher(ByRate, 100, 0, 0.05)
		runs := 0
		answer, err := s.run(context.Background(), func(_ context.Context, x float64) (bool, error) {
			st, err := r.judge("search", func(vote int) (Step, error) {
				runs++
				return Step{Pass: x <= truth || x <= lucky && vote == 1}, nil
			})
			return st.Pass, err
		})
		if err != nil {
			t.Fatal(err)
		}
		return answer, runs
	}
	old, _ := rate(1)
	if old <= truth*1.05 {
		t.Fatalf("votes 1: answer %g; the fake store does not show a lucky pass deciding the answer", old)
	}
	got, runs := rate(3)
	if got > truth || got < truth/1.05 {
		t.Errorf("votes 3: answer %g, want the capacity %g within 5%% (below it)", got, truth)
	}
	if runs > 30 {
		t.Errorf("votes 3: %d runs, want few (the growth stage takes one run per pass)", runs)
	}
}

func TestStretch(t *testing.T) {
	for _, c := range []struct {
		minOps int64
		target float64
		dur    time.Duration
		want   time.Duration
	}{
		{200, 500, 2 * time.Second, 2 * time.Second},        // 1,000 operations already
		{200, 31, 2 * time.Second, 6500 * time.Millisecond}, // 6.45 s, rounded up
		{200, 10, 2 * time.Second, 20 * time.Second},        // exactly the bound
		{10000, 10, 2 * time.Second, 20 * time.Second},      // 1,000 s: at most 10×
		{0, 31, 2 * time.Second, 2 * time.Second},           // no latency term
	} {
		if got := stretch(c.minOps, c.target, c.dur); got != c.want {
			t.Errorf("stretch(%d ops, %g ops/s, %v) = %v, want %v", c.minOps, c.target, c.dur, got, c.want)
		}
	}
}

// With the probe's capacity, growth goes to the capacity first and beyond
// it in widening steps: an answer at or below the probed capacity costs at
// most one target above it (where bisecting down from twice the capacity
// tried five), and a store whose capacity moved far up is still found.
func TestSearchGrowsToTheCapacity(t *testing.T) {
	tests := []struct {
		name            string
		capacity, truth float64
		aboveCapacity   int // targets tried above the capacity (-1: any)
		maxTried        int
	}{
		{"answer at half", 2000, 1000, 0, 7},
		{"answer at the capacity", 2000, 2000, 1, 3},
		{"answer below half", 2000, 600, 0, 7},
		{"capacity moved up", 2000, 5000, -1, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSearcher(ByRate, tt.capacity/2, 0, 0.05)
			s.capacity = tt.capacity
			var tried []float64
			got, err := s.run(context.Background(), func(_ context.Context, x float64) (bool, error) {
				tried = append(tried, x)
				return x <= tt.truth, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("tried %v → %g", tried, got)
			if got > tt.truth || got < tt.truth/1.05 {
				t.Errorf("answer %g, want within 5%% below %g", got, tt.truth)
			}
			above := 0
			for _, x := range tried {
				if x > tt.capacity {
					above++
				}
			}
			if tt.aboveCapacity >= 0 && above > tt.aboveCapacity || len(tried) > tt.maxTried {
				t.Errorf("%d targets, %d above the capacity %g; want at most %d, %d above", len(tried), above, tt.capacity, tt.maxTried, tt.aboveCapacity)
			}
		})
	}
}

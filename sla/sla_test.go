package sla

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
)

func TestParse(t *testing.T) {
	tests := []struct {
		expr string
		want []Term
	}{
		{"p95<100ms", []Term{{Metric: Latency, Percentile: 95, Cmp: Less, Limit: float64(100 * time.Millisecond)}}},
		{"p99.9<1s", []Term{{Metric: Latency, Percentile: 99.9, Cmp: Less, Limit: float64(time.Second)}}},
		{"READ.p99<10ms", []Term{{Op: "READ", Metric: Latency, Percentile: 99, Cmp: Less, Limit: float64(10 * time.Millisecond)}}},
		{"errors<0.1%", []Term{{Metric: Errors, Cmp: Less, Limit: 0.001, Percent: true}}},
		{"dropped=0", []Term{{Metric: Dropped, Cmp: Equal, Limit: 0}}},
		{"unpredictable<0.01%", []Term{{Metric: Unpredictable, Cmp: Less, Limit: 0.0001, Percent: true}}},
		{" p50 <= 2ms , errors<=5", []Term{
			{Metric: Latency, Percentile: 50, Cmp: LessEqual, Limit: float64(2 * time.Millisecond)},
			{Metric: Errors, Cmp: LessEqual, Limit: 5},
		}},
		{"READ-MODIFY-WRITE.p99<1ms", []Term{{Op: "READ-MODIFY-WRITE", Metric: Latency, Percentile: 99, Cmp: Less, Limit: float64(time.Millisecond)}}},
		{"UPDATE.errors<1%", []Term{{Op: "UPDATE", Metric: Errors, Cmp: Less, Limit: 0.01, Percent: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			s, err := Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Terms) != len(tt.want) {
				t.Fatalf("got %d terms, want %d", len(s.Terms), len(tt.want))
			}
			for i, got := range s.Terms {
				got.Text = ""
				w := tt.want[i]
				if got.Op != w.Op || got.Metric != w.Metric || got.Percentile != w.Percentile || got.Cmp != w.Cmp ||
					got.Percent != w.Percent || abs(got.Limit-w.Limit) > 1e-12 {
					t.Errorf("term %d = %+v, want %+v", i, got, w)
				}
			}
			// The canonical form parses back to the same terms.
			again, err := Parse(s.String())
			if err != nil || again.String() != s.String() {
				t.Errorf("round trip of %q: %q, %v", s.String(), again.String(), err)
			}
		})
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		expr   string
		column int
		want   string
	}{
		{"p95", 4, "expected a comparison"},
		{"p95<", 5, "expected a limit"},
		{"p95<100", 5, "expected a positive duration"},
		{"p95<<100ms", 5, "expected a positive duration"},
		{"p100<1s", 1, "above 0 and below 100"},
		{"q95<1s", 1, "unknown metric"},
		{"p95<1s,,errors<1%", 8, "expected a term"},
		{"p95<1s, errors<abc", 16, "expected a count"},
		{"errors<150%", 8, "expected a count"},
		{"errors<0.5", 8, "whole number"},
		{"dropped<0", 9, "never hold"},
		{"p95=1s", 4, "takes < or <="},
		{"RE/AD.p99<1ms", 1, "operation"},
		{"READ.dropped=0", 1, "over all operations"},
		{"<1s", 1, "expected a metric"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			_, err := Parse(tt.expr)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) = %v, want a *ParseError", tt.expr, err)
			}
			if pe.Column != tt.column || !strings.Contains(pe.Msg, tt.want) {
				t.Errorf("Parse(%q): column %d %q, want column %d containing %q", tt.expr, pe.Column, pe.Msg, tt.column, tt.want)
			}
		})
	}
	if _, err := Parse(); !errors.Is(err, ErrEmpty) {
		t.Errorf("Parse() = %v, want ErrEmpty", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"p95<100ms", "READ.p99.9<=1s,errors<0.1%", "dropped=0", "unpredictable<0.01%", "p<", ",", "p9.9.9<1ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		s, err := Parse(expr)
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) && (pe.Column < 1 || pe.Column > len(expr)+1) {
				t.Fatalf("column %d outside %q", pe.Column, expr)
			}
			return
		}
		again, err := Parse(s.String())
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", s.String(), expr, err)
		}
		if again.String() != s.String() {
			t.Fatalf("round trip %q -> %q", s.String(), again.String())
		}
	})
}

func TestCheck(t *testing.T) {
	ops := []string{"READ", "UPDATE"}
	for _, tt := range []struct {
		expr string
		ok   bool
	}{
		{"read.p99<1ms", true},
		{"INSERT.p99<1ms", false},
		{"unpredictable<1%", true},
		{"p95<1ms,errors<1%", true},
	} {
		s, err := Parse(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(ops); (err == nil) != tt.ok {
			t.Errorf("Check(%q) = %v, want ok=%v", tt.expr, err, tt.ok)
		}
	}
}

// summary builds a measured summary: latencies in ms per op.
func summary(dropped int64, ops map[string][]float64, errs map[string]int64) measure.Summary {
	var ivs []measure.Interval
	iv := measure.Interval{Phase: measure.PhaseMeasure, Start: time.Unix(0, 0), End: time.Unix(1, 0), Dropped: dropped}
	for op, lats := range ops {
		h := measure.NewHistogram()
		for _, l := range lats {
			_ = h.RecordValue(int64(l * 1000))
		}
		iv.Ops = append(iv.Ops, measure.OpInterval{Op: op, Count: int64(len(lats)), Errors: errs[op], Response: h, Service: measure.NewHistogram()})
	}
	ivs = append(ivs, iv)
	return measure.Summarize(measure.PhaseMeasure, ivs, nil)
}

func lats(n int, ms float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = ms
	}
	return out
}

func TestEvaluate(t *testing.T) {
	// 95 fast reads (1ms), 5 slow ones (80ms); 10 updates at 20ms, 1 error.
	sum := summary(3, map[string][]float64{
		"READ":   append(lats(95, 1), lats(5, 80)...),
		"UPDATE": lats(10, 20),
	}, map[string]int64{"UPDATE": 1})
	tests := []struct {
		expr     string
		pass     bool
		measured float64
	}{
		{"READ.p95<2ms", true, 1},
		{"READ.p96<2ms", false, 80},
		{"UPDATE.p50<20ms", false, 20},
		{"UPDATE.p50<=21ms", true, 20},
		{"errors<1%", true, 1.0 / 110},
		{"errors<0.5%", false, 1.0 / 110},
		{"UPDATE.errors<=1", true, 1},
		{"dropped=0", false, 3},
		{"dropped<=3", true, 3},
		{"NOPE.p50<1s", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			s, err := Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			r := s.Evaluate(sum)
			if r.Pass != tt.pass || r.Terms[0].Pass != tt.pass {
				t.Errorf("pass = %v, want %v (%v)", r.Pass, tt.pass, r.Terms[0])
			}
			if m := r.Terms[0].Measured; tt.measured != 0 && abs(m-tt.measured) > tt.measured*0.002 {
				t.Errorf("measured = %v, want %v", m, tt.measured)
			}
		})
	}
}

func TestDoomed(t *testing.T) {
	s, err := Parse("p95<50ms")
	if err != nil {
		t.Fatal(err)
	}
	// 10 slow operations of 20 so far.
	sofar := summary(0, map[string][]float64{"READ": append(lats(10, 1), lats(10, 60)...)}, nil)
	tests := []struct {
		expected int64
		doomed   bool
	}{
		{20, true},   // all issued: p95 is slow
		{190, true},  // 10 slow of 190: p95 rank 181 leaves 9 slots above
		{200, false}, // 10 slow of 200: rank 190, slots 11: might still hold
		{1000, false},
		{5, true}, // fewer expected than seen: counts as seen
	}
	for _, tt := range tests {
		if got := s.Doomed(sofar, tt.expected) != ""; got != tt.doomed {
			t.Errorf("Doomed(expected %d) = %v, want %v", tt.expected, got, tt.doomed)
		}
	}
	// It agrees with Evaluate: when doomed at the full count, it fails.
	full := summary(0, map[string][]float64{"READ": append(lats(180, 1), lats(10, 60)...)}, nil)
	if s.Evaluate(full).Pass {
		t.Error("180 fast + 10 slow meets p95<50ms, want a failure (doomed said so)")
	}
	e, _ := Parse("errors<=2,dropped=0")
	if r := e.Doomed(summary(1, map[string][]float64{"READ": lats(5, 1)}, nil), 100); !strings.Contains(r, "dropped") {
		t.Errorf("one dropped operation with dropped=0: %q, want doomed", r)
	}
	if r := e.Doomed(summary(0, map[string][]float64{"READ": lats(5, 1)}, map[string]int64{"READ": 3}), 100); !strings.Contains(r, "errors") {
		t.Errorf("3 errors with errors<=2: %q, want doomed", r)
	}
}

func TestEvaluateUnpredictable(t *testing.T) {
	sum := summary(0, map[string][]float64{"READ": {1, 1, 1}}, nil)
	for _, tt := range []struct {
		expr  string
		reads Reads
		pass  bool
		value float64
	}{
		{"unpredictable<0.01%", Reads{}, false, 0},
		{"unpredictable<0.01%", Reads{Counted: true, Total: 100000, Unpredictable: 5}, true, 0.00005},
		{"unpredictable<0.01%", Reads{Counted: true, Total: 100000, Unpredictable: 10}, false, 0.0001},
		{"unpredictable=0", Reads{Counted: true, Total: 10}, true, 0},
		{"stale<=2", Reads{Counted: true, Total: 10, Unpredictable: 3}, false, 3},
	} {
		s, err := Parse(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		r := s.EvaluateReads(sum, tt.reads)
		if r.Pass != tt.pass || r.Terms[0].Measured != tt.value {
			t.Errorf("%s with %+v: pass %v measured %v, want %v %v", tt.expr, tt.reads, r.Pass, r.Terms[0].Measured, tt.pass, tt.value)
		}
	}
	if !mustParse(t, "p95<1s,unpredictable<1%").HasUnpredictable() || mustParse(t, "p95<1s").HasUnpredictable() {
		t.Error("HasUnpredictable")
	}
}

func mustParse(t *testing.T, e string) SLA {
	t.Helper()
	s, err := Parse(e)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMinSample(t *testing.T) {
	half := func(op string) float64 {
		if op == "READ" {
			return 0.5
		}
		return 0
	}
	for _, c := range []struct {
		terms []string
		tail  int
		share func(string) float64
		want  int64
	}{
		{[]string{"p95<10ms"}, 10, nil, 200},
		{[]string{"p99<10ms"}, 10, nil, 1000},
		{[]string{"p99.9<1s"}, 10, nil, 10000},
		{[]string{"p50<1s"}, 10, nil, 20},
		{[]string{"p95<10ms", "p99<1s"}, 10, nil, 1000}, // the strictest percentile
		{[]string{"READ.p95<10ms"}, 10, half, 400},      // reads are half the operations
		{[]string{"UPDATE.p95<10ms"}, 10, half, 200},    // unknown share: all
		{[]string{"errors<1%", "dropped=0"}, 10, nil, 0},
		{[]string{"p95<10ms"}, 0, nil, 0},
	} {
		s := mustParse(t, strings.Join(c.terms, ","))
		if got := s.MinSample(c.tail, c.share); got != c.want {
			t.Errorf("%v tail %d: MinSample %d, want %d", c.terms, c.tail, got, c.want)
		}
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
)

// The summary says when dbrig itself shaped the latencies, from the lag
// and response times measured, not from how busy the machine running the
// test happens to be: an idle generator's lag (2 ms p99 next to a 200 ms
// system) is shown and not warned about; a starved one's (30 ms p99, more
// than a tenth of 200 ms) is warned about, with both figures, also in the
// JSON.
func TestSummaryGeneratorLateWarning(t *testing.T) {
	const warning = "warning: the load generator was late"
	sum := func(lagP99 int64) measure.Summary {
		o := measure.OpSummary{Op: "READ", Count: 40, Throughput: 20,
			Response: measure.Stats{Count: 40, Mean: 200e3, P50: 200e3, P99: 200e3 + lagP99, Max: 200e3 + lagP99},
			Service:  measure.Stats{Count: 40, Mean: 200e3, P50: 200e3, P99: 200e3, Max: 200e3}}
		return measure.Summary{Phase: measure.PhaseMeasure, Start: t0, End: t0.Add(2 * time.Second), Ops: []measure.OpSummary{o}, Overall: o,
			Lag: measure.Stats{Count: 40, Mean: float64(lagP99) / 4, P50: lagP99 / 4, P99: lagP99, Max: lagP99}}
	}
	for _, tt := range []struct {
		name   string
		lagP99 int64 // µs
		warn   string
	}{
		{"idle", 2000, ""},
		{"at a tenth", 20000, ""},
		{"starved", 30000, warning + ": dispatch lag p99 30.0ms is more than 10% of the response time p50 200ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Summary(&buf, Header{}, []measure.Summary{sum(tt.lagP99)}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !strings.Contains(out, "dispatch lag (dbrig's own lateness, inside the response times): p50 ") {
				t.Errorf("summary lacks the dispatch lag:\n%s", out)
			}
			if tt.warn == "" && strings.Contains(out, warning) || tt.warn != "" && !strings.Contains(out, tt.warn) {
				t.Errorf("lag p99 %d µs next to a p50 of 200 ms: want warning %q:\n%s", tt.lagP99, tt.warn, out)
			}
			buf.Reset()
			if err := JSON(&buf, 1, "done", []measure.Summary{sum(tt.lagP99)}); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Late bool `json:"generator_late"`
			}
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Late != (tt.warn != "") {
				t.Errorf("JSON generator_late = %v, want %v", got.Late, tt.warn != "")
			}
		})
	}
}

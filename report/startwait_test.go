package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
)

// The summary splits the mean wait before the start into queueing and
// dbrig's own dispatch lag, and says nothing when operations started on time.
func TestSummaryStartWait(t *testing.T) {
	sum := func(respMean, svcMean, lagMean float64) measure.Summary {
		o := measure.OpSummary{Op: "READ", Count: 10, Throughput: 1,
			Response: measure.Stats{Count: 10, Mean: respMean, P50: int64(respMean), Max: int64(respMean)},
			Service:  measure.Stats{Count: 10, Mean: svcMean, P50: int64(svcMean), Max: int64(svcMean)}}
		return measure.Summary{Phase: measure.PhaseMeasure, Start: t0, End: t0.Add(10 * time.Second), Ops: []measure.OpSummary{o}, Overall: o,
			Lag: measure.Stats{Count: 10, Mean: lagMean, Max: int64(lagMean * 2)}}
	}
	for _, tt := range []struct {
		name             string
		s                measure.Summary
		line             string // "" = no such line
		mean, queue, lag float64
	}{
		{"queueing and lag", sum(500, 200, 50), "waited before the start (response − service time, mean): 300µs = queueing behind busy clients 250µs + dispatch lag 50µs", 300, 250, 50},
		{"on time", sum(200, 200, 0), "", 0, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Summary(&buf, Header{}, []measure.Summary{tt.s}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if tt.line == "" && strings.Contains(out, "waited before the start") {
				t.Errorf("wait line for operations that started on time:\n%s", out)
			}
			if tt.line != "" && !strings.Contains(out, tt.line) {
				t.Errorf("summary lacks %q:\n%s", tt.line, out)
			}
			buf.Reset()
			if err := JSON(&buf, 1, "done", []measure.Summary{tt.s}); err != nil {
				t.Fatal(err)
			}
			var got struct {
				W JSONStartWait `json:"start_wait"`
			}
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if want := (JSONStartWait{MeanUS: tt.mean, QueueMeanUS: tt.queue, LagMeanUS: tt.lag}); got.W != want {
				t.Errorf("JSON start_wait = %+v, want %+v", got.W, want)
			}
		})
	}
}

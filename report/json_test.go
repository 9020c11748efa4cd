package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/measure"
)

func TestJSONUnmarshalsWithTheNumbers(t *testing.T) {
	s := histSummary(t)
	s.Dropped = 9
	var buf bytes.Buffer
	warm := fixedSummary(0)
	warm.Phase = measure.PhaseWarmup
	if err := JSON(&buf, 42, "done", []measure.Summary{warm, s}); err != nil {
		t.Fatal(err)
	}
	// Decode into plain maps, not JSONResult, so the field names are checked too.
	var got struct {
		RunID     int64                         `json:"run_id"`
		Status    string                        `json:"status"`
		DurationS float64                       `json:"duration_s"`
		Dropped   int64                         `json:"dropped"`
		Ops       map[string]map[string]float64 `json:"ops"`
		Service   map[string]map[string]float64 `json:"service"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if got.RunID != 42 || got.Status != "done" || got.DurationS != 10 || got.Dropped != 9 {
		t.Errorf("run fields = %+v", got)
	}
	check := func(section string, m map[string]map[string]float64, o measure.OpSummary, st measure.Stats) {
		want := map[string]float64{"count": float64(o.Count), "errors": float64(o.Errors), "error_rate": float64(o.Errors) / float64(o.Count), "throughput": o.Throughput,
			"mean_us": st.Mean, "p50_us": float64(st.P50), "p90_us": float64(st.P90), "p95_us": float64(st.P95),
			"p99_us": float64(st.P99), "p999_us": float64(st.P999), "max_us": float64(st.Max)}
		g := m[o.Op]
		if len(g) != len(want) {
			t.Errorf("%s.%s has fields %v, want %v", section, o.Op, keys(g), keys(want))
		}
		for k, v := range want {
			if g[k] != v {
				t.Errorf("%s.%s.%s = %v, want %v", section, o.Op, k, g[k], v)
			}
		}
	}
	for _, o := range analysis.WithOverall(s) {
		check("ops", got.Ops, o, o.Response)
		check("service", got.Service, o, o.Service)
	}
	if len(got.Ops) != 3 || got.Ops["OVERALL"]["count"] != 1250 {
		t.Errorf("ops = %v, want READ, UPDATE and OVERALL (1250)", keys(got.Ops))
	}
	if got.Ops["READ"]["p99_us"] == got.Service["READ"]["p99_us"] {
		t.Error("response and service p99 are equal: service figures not taken from service time")
	}
}

func TestJSONWithoutMeasurePhase(t *testing.T) {
	load := fixedSummary(0)
	load.Phase = measure.PhaseLoad
	var buf bytes.Buffer
	if err := JSON(&buf, 1, "done", []measure.Summary{load}); err != nil {
		t.Fatal(err)
	}
	var got JSONResult
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Phase != measure.PhaseLoad || got.Ops["READ"].Count != 1234567 {
		t.Errorf("load-only JSON = phase %q READ %+v", got.Phase, got.Ops["READ"])
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

func TestHeadlineAndJSONRun(t *testing.T) {
	ms := []results.RunMetric{{Name: "tpmc", Value: 12345.6, Unit: "txn/min"}, {Name: "tpm_total", Value: 27000, Unit: "txn/min"},
		{Name: "retries_payment", Value: 3, Unit: "retries"}, {Name: "consistency_ok", Value: 0}, {Name: "status", Value: 9}}
	var b bytes.Buffer
	if err := Headline(&b, ms); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tpmc             12,346 txn/min", "tpm_total        27,000 txn/min", "retries_payment  3 retries", "consistency_ok   FAILED"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("headline lacks %q:\n%s", want, b.String())
		}
	}
	start := time.Unix(100, 0)
	sum := measure.Summary{Phase: measure.PhaseMeasure, Start: start, End: start.Add(time.Minute),
		Ops: []measure.OpSummary{{Op: "NEW_ORDER", Count: 10}, {Op: "PAYMENT", Count: 5, Errors: 1}}}
	b.Reset()
	if err := JSONRun(&b, 7, "done", []measure.Summary{sum}, ms); err != nil {
		t.Fatal(err)
	}
	var got struct {
		RunID    int64                     `json:"run_id"`
		Status   string                    `json:"status"`
		TpmC     float64                   `json:"tpmc"`
		TpmTotal float64                   `json:"tpm_total"`
		Ops      map[string]map[string]any `json:"ops"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if got.RunID != 7 || got.Status != "done" || got.TpmC != 12345.6 || got.TpmTotal != 27000 || got.Ops["NEW_ORDER"]["count"] != 10.0 {
		t.Errorf("JSON %+v\n%s", got, b.String())
	}
	if strings.Contains(b.String(), `"status": 9`) {
		t.Error("a metric named like a field replaced it")
	}
}

func TestLoadLine(t *testing.T) {
	start := time.Unix(100, 0)
	load := measure.Summary{Phase: measure.PhaseLoad, Start: start, End: start.Add(2 * time.Second), Records: 5000}
	meas := measure.Summary{Phase: measure.PhaseMeasure, Start: start, End: start.Add(time.Second)}
	var b bytes.Buffer
	if err := LoadLine(&b, []measure.Summary{load, meas}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "5,000 records") || !strings.Contains(b.String(), "2,500 records/s") {
		t.Errorf("load line %q", b.String())
	}
	b.Reset()
	LoadLine(&b, []measure.Summary{load})
	if b.Len() != 0 {
		t.Errorf("load-only run: %q (its own summary shows the load)", b.String())
	}
}

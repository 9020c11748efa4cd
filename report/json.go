package report

import (
	"encoding/json"
	"io"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/measure"
)

// JSONStats are the figures of one operation in JSON output.
type JSONStats struct {
	Count      int64   `json:"count"`
	Errors     int64   `json:"errors"`
	Throughput float64 `json:"throughput"`
	MeanUS     float64 `json:"mean_us"`
	P50US      int64   `json:"p50_us"`
	P90US      int64   `json:"p90_us"`
	P95US      int64   `json:"p95_us"`
	P99US      int64   `json:"p99_us"`
	P999US     int64   `json:"p999_us"`
	MaxUS      int64   `json:"max_us"`
}

// JSONResult is the machine-readable result of one phase. "ops" holds
// response times (latency from the intended start), "service" service times;
// both include an "OVERALL" entry.
type JSONResult struct {
	RunID     int64                `json:"run_id"`
	Status    string               `json:"status"`
	Phase     string               `json:"phase"`
	DurationS float64              `json:"duration_s"`
	Dropped   int64                `json:"dropped"`
	Ops       map[string]JSONStats `json:"ops"`
	Service   map[string]JSONStats `json:"service"`
	// DispatchLag is dbrig's own lateness, inside the response times.
	DispatchLag JSONLag `json:"dispatch_lag"`
	// GeneratorLate says the lag is large against the latencies measured:
	// they are then partly the harness's.
	GeneratorLate bool `json:"generator_late"`
	// StartWait is the mean wait before the start, split (measure.StartWait).
	StartWait JSONStartWait `json:"start_wait"`
}

// JSONStartWait is measure.StartWait in µs.
type JSONStartWait struct {
	MeanUS      float64 `json:"mean_us"`
	QueueMeanUS float64 `json:"queue_mean_us"`
	LagMeanUS   float64 `json:"lag_mean_us"`
}

// JSONLag is the dispatch lag of a phase, in µs.
type JSONLag struct {
	P50US int64 `json:"p50_us"`
	P99US int64 `json:"p99_us"`
	MaxUS int64 `json:"max_us"`
}

// JSON writes the last measure phase of sums (or the last phase when there
// is none, e.g. for a load-only run) as one JSON object.
func JSON(w io.Writer, runID int64, status string, sums []measure.Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Result(runID, status, sums))
}

// Result is the JSON form of a run's last measure phase (or its last phase
// when there is none), as JSON writes it.
func Result(runID int64, status string, sums []measure.Summary) JSONResult {
	s, _, _ := analysis.ShownPhase(sums)
	res := JSONResult{RunID: runID, Status: status, Phase: s.Phase, DurationS: s.End.Sub(s.Start).Seconds(),
		Dropped: s.Dropped, Ops: map[string]JSONStats{}, Service: map[string]JSONStats{}}
	for _, o := range analysis.WithOverall(s) {
		res.Ops[o.Op] = jsonStats(o, o.Response)
		res.Service[o.Op] = jsonStats(o, o.Service)
	}
	res.DispatchLag = JSONLag{P50US: s.Lag.P50, P99US: s.Lag.P99, MaxUS: s.Lag.Max}
	res.GeneratorLate = analysis.GeneratorLate(s)
	w := s.StartWait()
	res.StartWait = JSONStartWait{MeanUS: w.MeanUS, QueueMeanUS: w.QueueMeanUS, LagMeanUS: w.LagMeanUS}
	return res
}

func jsonStats(o measure.OpSummary, st measure.Stats) JSONStats {
	return JSONStats{Count: o.Count, Errors: o.Errors, Throughput: o.Throughput, MeanUS: st.Mean,
		P50US: st.P50, P90US: st.P90, P95US: st.P95, P99US: st.P99, P999US: st.P999, MaxUS: st.Max}
}

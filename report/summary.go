package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// Header names the run a summary belongs to; empty fields are left out.
type Header struct {
	RunID         int64
	Name          string
	System        string
	ServerVersion string
	Workload      string
	Status        string
}

// HeaderOf returns the header of a stored run.
func HeaderOf(d *results.RunDetail) Header {
	return Header{RunID: d.ID, Name: d.Name, System: d.System, ServerVersion: d.ServerVersion,
		Workload: d.Workload, Status: d.DisplayStatus()}
}

func (h Header) String() string {
	var parts []string
	if h.RunID != 0 {
		parts = append(parts, fmt.Sprintf("run %d", h.RunID))
	}
	if h.Name != "" {
		parts = append(parts, strconv.Quote(h.Name))
	}
	if sys := strings.TrimSpace(h.System + " " + h.ServerVersion); sys != "" {
		parts = append(parts, sys)
	}
	if h.Workload != "" {
		parts = append(parts, h.Workload)
	}
	if h.Status != "" {
		parts = append(parts, h.Status)
	}
	return strings.Join(parts, " · ")
}

// Summary writes an aligned table of response times per operation for each
// measure phase, then service-time p99 per operation, dropped operations and
// the most frequent errors.
func Summary(w io.Writer, h Header, sums []measure.Summary) error {
	ew := &errWriter{w: w}
	if s := h.String(); s != "" {
		ew.printf("%s\n", s)
	}
	phases := analysis.MeasurePhases(sums)
	if len(phases) == 0 {
		ew.printf("no phase was completed\n")
	}
	for _, s := range phases {
		writePhase(ew, s)
	}
	return ew.err
}

func writePhase(ew *errWriter, s measure.Summary) { writePhaseResult(ew, analysis.PhaseOf(s)) }

// writePhaseResult writes a phase's figures as analysis computed them.
func writePhaseResult(ew *errWriter, p analysis.PhaseResult) {
	all := p.Overall()
	errs := format.Int(all.Errors) + " errors"
	if all.Errors > 0 {
		errs += " (" + measure.SharePct(all.Errors, all.Count) + ")"
	}
	ew.printf("\n%s phase: %s, %s operations, %s ops/s, %s\n",
		p.Phase, format.Elapsed(p.End.Sub(p.Start)), format.Int(all.Count), format.Rate(all.Throughput), errs)
	if err := (measure.Summary{Phase: p.Phase, Overall: measure.OpSummary{Count: all.Count, Errors: all.Errors}}).MostlyFailed(); err != nil {
		ew.printf("FAILED: %v; ops/s counts the %s that succeeded\n", err, format.Int(all.Count-all.Errors))
	}
	if p.Records > 0 && p.DurationS > 0 {
		ew.printf("%s records inserted, %s records/s (each operation below is one batch)\n",
			format.Int(p.Records), format.Rate(p.RecordsPerSec))
	}
	if p.Wanted > p.Records {
		ew.printf("the data set is partial: %s of %s records were loaded\n", format.Int(p.Records), format.Int(p.Wanted))
	}
	t := &table{}
	t.add("op", "count", "errors", "ops/s", "mean", "p50", "p90", "p95", "p99", "p99.9", "max")
	rows := p.Ops
	if len(p.Ops) <= 2 { // one operation (or none): an OVERALL row would say the same
		rows = p.Ops[:len(p.Ops)-1]
	}
	for _, o := range rows {
		r := o.Response
		t.add(o.Op, format.Int(o.Count), format.Int(o.Errors), format.Rate(o.Throughput), format.Micros(r.Mean),
			format.MicrosInt(r.P50), format.MicrosInt(r.P90), format.MicrosInt(r.P95), format.MicrosInt(r.P99), format.MicrosInt(r.P999), format.MicrosInt(r.Max))
	}
	ew.printf("response time (latency from the intended start):\n")
	ew.table(t, "  ")
	var svc []string
	for _, o := range rows {
		svc = append(svc, o.Op+" "+format.MicrosInt(o.Service.P99))
	}
	ew.printf("service time p99: %s\n", strings.Join(svc, ", "))
	if l := p.Lag; l.Max > 0 {
		ew.printf("dispatch lag (dbrig's own lateness, inside the response times): p50 %s, p99 %s, max %s\n",
			format.MicrosInt(l.P50), format.MicrosInt(l.P99), format.MicrosInt(l.Max))
	}
	if w := p.StartWait; w.MeanUS >= 1 {
		ew.printf("waited before the start (response − service time, mean): %s = queueing behind busy clients %s + dispatch lag %s\n",
			format.Micros(w.MeanUS), format.Micros(w.QueueMeanUS), format.Micros(w.LagMeanUS))
	}
	if p.GeneratorLate {
		ew.printf("warning: the load generator was late: dispatch lag p99 %s is more than %.0f%% of the response time p50 %s,\n"+
			"  so latencies this small are partly dbrig's own (a busy machine? fewer clients, a lower rate, or a faster one)\n",
			format.MicrosInt(p.Lag.P99), 100*analysis.LagShare, format.MicrosInt(all.Response.P50))
	}
	if full := p.Dropped - p.Late; full > 0 {
		ew.printf("dropped: %s operations were not started: the backlog limit was hit (the target rate was not sustained)\n", format.Int(full))
	}
	if p.Late > 0 {
		ew.printf("dropped: %s operations were still waiting for a client when the phase ended (the system fell behind the target rate)\n", format.Int(p.Late))
	}
	writeErrors(ew, p.Errors)
}

// maxErrorLines bounds the error samples printed; all are in the store.
const maxErrorLines = 5

func writeErrors(ew *errWriter, errs []measure.ErrorSample) {
	if len(errs) == 0 {
		return
	}
	sorted := append([]measure.ErrorSample(nil), errs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Count > sorted[j].Count })
	ew.printf("errors:\n")
	for i, e := range sorted {
		if i == maxErrorLines {
			ew.printf("  … %d more kinds of error\n", len(sorted)-maxErrorLines)
			break
		}
		ew.printf("  %s× %s %s: %s\n", format.Int(e.Count), e.Op, e.Class, e.Message)
	}
}

// YCSB writes a phase the way YCSB prints its results, so scripts made for
// YCSB output can read dbrig's. Latencies are response times (YCSB's
// "Intended-" figures): with a target rate they include queueing delay, which
// YCSB's plain figures omit.
func YCSB(w io.Writer, s measure.Summary) error {
	ew := &errWriter{w: w}
	ew.printf("[OVERALL], RunTime(ms), %d\n", s.End.Sub(s.Start).Milliseconds())
	ew.printf("[OVERALL], Throughput(ops/sec), %s\n", jfloat(s.Overall.Throughput))
	for _, o := range s.Ops {
		name, r := "["+o.Op+"]", o.Response
		ew.printf("%s, Operations, %d\n", name, o.Count)
		ew.printf("%s, AverageLatency(us), %s\n", name, jfloat(r.Mean))
		ew.printf("%s, MinLatency(us), %d\n", name, r.Min)
		ew.printf("%s, MaxLatency(us), %d\n", name, r.Max)
		ew.printf("%s, 95thPercentileLatency(us), %d\n", name, r.P95)
		ew.printf("%s, 99thPercentileLatency(us), %d\n", name, r.P99)
		ew.printf("%s, Return=OK, %d\n", name, o.Count-o.Errors)
		// YCSB names its statuses; not-found has its own, the rest are ERROR.
		notFound := o.Classes["not_found"]
		if notFound > 0 {
			ew.printf("%s, Return=NOT_FOUND, %d\n", name, notFound)
		}
		if n := o.Errors - notFound; n > 0 {
			ew.printf("%s, Return=ERROR, %d\n", name, n)
		}
	}
	return ew.err
}

// jfloat prints a float as Java's Double.toString would for ordinary values
// (always with a decimal point), which is what YCSB parsers expect.
func jfloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

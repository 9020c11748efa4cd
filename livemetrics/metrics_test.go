package livemetrics

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/scenario"
)

func TestNativeIndex(t *testing.T) {
	f := math.Exp2(1.0 / 8)
	for _, tc := range []struct {
		v    float64
		want int
	}{
		{1, 0}, {2, 8}, {0.5, -8}, {1.0001, 1}, {f, 1}, {f * 1.0001, 2}, {0.001, -79}, {1024, 80},
	} {
		if got := nativeIndex(tc.v); got != tc.want {
			t.Errorf("nativeIndex(%g) = %d, want %d", tc.v, got, tc.want)
		}
		// Bucket i holds (2^((i-1)/8), 2^(i/8)].
		i := nativeIndex(tc.v)
		lo, hi := math.Exp2(float64(i-1)/8), math.Exp2(float64(i)/8)
		if !(tc.v > lo*(1-1e-12) && tc.v <= hi*(1+1e-12)) {
			t.Errorf("%g not in bucket %d (%g, %g]", tc.v, i, lo, hi)
		}
	}
}

// TestEachValueIsDistribution holds bucketValues's index arithmetic to
// HdrHistogram's own Distribution, over dbrig's range and another.
func TestEachValueIsDistribution(t *testing.T) {
	for _, h := range []*hdr.Histogram{measure.NewHistogram(), hdr.New(4, 1_000_000_000, 2)} {
		x := uint64(99)
		for range 50_000 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			_ = h.RecordValue(int64(math.Exp(float64(x%1_000_000) / 1_000_000 * math.Log(float64(h.HighestTrackableValue())))))
		}
		var want, got [][2]int64
		for _, b := range h.Distribution() {
			if b.Count > 0 {
				want = append(want, [2]int64{b.To, b.Count})
			}
		}
		s := h.Export()
		bucketValues(s, func(i int, v int64) {
			if s.Counts[i] > 0 {
				got = append(got, [2]int64{v, s.Counts[i]})
			}
		})
		if !slices.Equal(got, want) {
			t.Errorf("bucketValues differs from Distribution: %d buckets vs %d; first got %v want %v", len(got), len(want), got[:3], want[:3])
		}
	}
}

// interval is one second with n READs of each given latency (µs), errs of
// them failed as class "timeout", lag of 0 and 30 µs.
func interval(phase string, start time.Time, lat []int64, errs int64) measure.Interval {
	resp := measure.NewHistogram()
	for _, v := range lat {
		_ = resp.RecordValue(v)
	}
	lag := measure.NewHistogram()
	_ = lag.RecordValue(0)
	_ = lag.RecordValue(30)
	return measure.Interval{
		Phase: phase, Start: start, End: start.Add(time.Second),
		Ops: []measure.OpInterval{{Op: "READ", Count: int64(len(lat)), Errors: errs,
			Classes: map[string]int64{"timeout": errs}, Response: resp, Service: resp}},
		Dropped: 3, Backlog: 7, Lag: lag, TargetRate: 1000,
	}
}

func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// find returns the metric of family name whose labels include want.
func find(t *testing.T, mfs map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	t.Helper()
	for _, m := range mfs[name].GetMetric() {
		ok := true
		for k, v := range want {
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == k && lp.GetValue() == v {
					found = true
				}
			}
			ok = ok && found
		}
		if ok {
			return m
		}
	}
	t.Fatalf("no %s%v", name, want)
	return nil
}

func TestMetricsFromIntervals(t *testing.T) {
	m := New()
	m.BeginRun(Run{Experiment: "exp", Workload: "workloada", System: "sim", Matrix: map[string]string{"load.clients": "4"}})
	m.SetRunID("12")
	t0 := time.Unix(1_700_000_000, 0)
	m.Event(run.Event{Time: t0, Kind: run.EventPhaseStart, Name: measure.PhaseMeasure})
	m.Interval(interval(measure.PhaseMeasure, t0, []int64{100, 200, 300, 5000}, 1))
	m.Interval(interval(measure.PhaseMeasure, t0.Add(time.Second), []int64{100, 100}, 0))
	m.Event(run.Event{Time: t0, Kind: scenario.EventFaultStart, Name: "kill-1", Outcome: "injected"})
	m.Event(run.Event{Time: t0, Kind: scenario.EventFault, Name: "pause", Outcome: "failed: no such node"})
	mfs := gather(t, m)

	run := map[string]string{"run_id": "12", "phase": "measure", "op": "READ"}
	ok := find(t, mfs, "dbrig_operations_total", map[string]string{"run_id": "12", "result": "success"})
	bad := find(t, mfs, "dbrig_operations_total", map[string]string{"run_id": "12", "result": "error"})
	if ok.GetCounter().GetValue() != 5 || bad.GetCounter().GetValue() != 1 {
		t.Errorf("operations: success %v error %v, want 5 and 1", ok.GetCounter().GetValue(), bad.GetCounter().GetValue())
	}
	if v := find(t, mfs, "dbrig_operation_errors_total", map[string]string{"class": "timeout"}).GetCounter().GetValue(); v != 1 {
		t.Errorf("timeout errors %v, want 1", v)
	}
	h := find(t, mfs, "dbrig_operation_latency_seconds", run).GetHistogram()
	if h.GetSampleCount() != 6 {
		t.Errorf("latency count %d, want 6", h.GetSampleCount())
	}
	if got, want := h.GetSampleSum(), (100+200+300+5000+100+100)/1e6; math.Abs(got-want) > 1e-4 {
		t.Errorf("latency sum %g, want about %g", got, want)
	}
	// Classic: 3 at ≤ 100 µs... ≤ 250 µs: 4; ≤ 500 µs: 5; ≤ 5 ms: 5 (5000 µs rounds up a little in HDR), ≤ 10 ms: 6.
	cum := map[float64]uint64{}
	for _, b := range h.GetBucket() {
		cum[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	for ub, want := range map[float64]uint64{0.0001: 3, 0.00025: 4, 0.0005: 5, 0.01: 6} {
		if cum[ub] != want {
			t.Errorf("classic bucket le=%g: %d, want %d", ub, cum[ub], want)
		}
	}
	// Native: the deltas add up to the count.
	var n, c int64
	for _, d := range h.GetPositiveDelta() {
		c += d
		n += c
	}
	if h.GetSchema() != NativeSchema || n+int64(h.GetZeroCount()) != 6 {
		t.Errorf("native: schema %d, %d in buckets + %d zero, want schema %d and 6", h.GetSchema(), n, h.GetZeroCount(), NativeSchema)
	}
	lag := find(t, mfs, "dbrig_dispatch_lag_seconds", map[string]string{"run_id": "12"}).GetHistogram()
	if lag.GetSampleCount() != 4 || lag.GetZeroCount() != 2 {
		t.Errorf("lag: count %d zero %d, want 4 and 2", lag.GetSampleCount(), lag.GetZeroCount())
	}
	for name, want := range map[string]float64{"dbrig_dropped_operations_total": 6, "dbrig_backlog_operations": 7, "dbrig_target_ops_per_second": 1000} {
		m := find(t, mfs, name, map[string]string{"run_id": "12"})
		if got := m.GetCounter().GetValue() + m.GetGauge().GetValue(); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if v := find(t, mfs, "dbrig_phase", map[string]string{"phase": "measure"}).GetGauge().GetValue(); v != 1 {
		t.Errorf("dbrig_phase{measure} = %v, want 1", v)
	}
	find(t, mfs, "dbrig_run_info", map[string]string{"run_id": "12", "experiment": "exp", "matrix_load_clients": "4", "system": "sim"})
	find(t, mfs, "dbrig_fault_active", map[string]string{"fault": "kill-1"})
	find(t, mfs, "dbrig_fault_events_total", map[string]string{"fault": "pause", "outcome": "failed", "kind": "fault"})

	// A second run: its own series, the first's kept.
	m.BeginRun(Run{Experiment: "exp", Matrix: map[string]string{"load.clients": "8"}})
	m.SetRunID("13")
	m.Interval(interval(measure.PhaseMeasure, t0, []int64{100}, 0))
	mfs = gather(t, m)
	find(t, mfs, "dbrig_operations_total", map[string]string{"run_id": "12", "result": "success"})
	find(t, mfs, "dbrig_operations_total", map[string]string{"run_id": "13", "result": "success"})
	find(t, mfs, "dbrig_run_info", map[string]string{"run_id": "13", "matrix_load_clients": "8"})
}

// TestExpositionPassesPromtool serves the metrics as a scraper sees them
// and has promtool (Prometheus's own linter) check the text.
func TestExpositionPassesPromtool(t *testing.T) {
	m := New()
	m.BeginRun(Run{Experiment: "exp", Workload: "workloada", System: "sim", Matrix: map[string]string{"clients": "4"}})
	m.SetRunID("1")
	t0 := time.Now()
	m.Event(run.Event{Time: t0, Kind: run.EventPhaseStart, Name: measure.PhaseMeasure})
	m.Interval(interval(measure.PhaseMeasure, t0, []int64{100, 200, 300, 5000}, 1))
	m.Event(run.Event{Time: t0, Kind: scenario.EventFault, Name: "kill", Outcome: "injected"})
	srv := httptest.NewServer(promhttp.HandlerFor(m.Registry(), promhttp.HandlerOpts{EnableOpenMetrics: true}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// The text parses as the exposition format, with the families expected.
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("exposition does not parse: %v\n%s", err, body)
	}
	for _, name := range []string{"dbrig_operations_total", "dbrig_operation_latency_seconds", "dbrig_dispatch_lag_seconds", "dbrig_run_info", "dbrig_fault_events_total", "dbrig_workers"} {
		if fams[name] == nil {
			t.Errorf("no %s in the exposition", name)
		}
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("DBRIG_REQUIRE_SERVERS") == "1" {
			t.Fatalf("promtool is not installed, but DBRIG_REQUIRE_SERVERS=1 (scripts/install-deps prometheus)")
		}
		t.Skip("SKIPPED: promtool is not installed (scripts/install-deps prometheus)")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
	if !strings.Contains(string(body), `le="0.0001"`) {
		t.Errorf("no classic buckets in the text exposition:\n%s", body)
	}
	// OpenMetrics when the scraper asks for it.
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0; charset=utf-8")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	om, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") ||
		!strings.HasSuffix(string(om), "# EOF\n") || !strings.Contains(string(om), "# TYPE dbrig_operations counter") {
		t.Errorf("OpenMetrics: content type %q, body:\n%s", ct, om)
	}
}

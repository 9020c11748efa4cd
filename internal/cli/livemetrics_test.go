package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/livemetrics"
)

// prometheus is a real Prometheus server the test started on loopback,
// scraping the targets it is told (file service discovery), receiving
// remote writes, with native histograms on.
type prometheus struct {
	url     string
	targets string // file_sd file
	cmd     *exec.Cmd
}

// startPrometheus starts Debian's prometheus (DBRIG_PROMETHEUS, else on
// PATH) with a generated config, and stops it by PID when the test ends.
func startPrometheus(t *testing.T) *prometheus {
	t.Helper()
	bin := os.Getenv("DBRIG_PROMETHEUS")
	if bin == "" {
		if p, err := exec.LookPath("prometheus"); err == nil {
			bin = p
		} else {
			bin = testenv.Need(t, "DBRIG_PROMETHEUS") // skips or fails
		}
	}
	dir := t.TempDir()
	p := &prometheus{targets: filepath.Join(dir, "targets.json")}
	writeFile(t, p.targets, "[]")
	cfg := fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: dbrig
    scrape_interval: 1s
    scrape_timeout: 900ms
    file_sd_configs: [{files: [%q], refresh_interval: 1s}]
`, p.targets)
	writeFile(t, filepath.Join(dir, "prometheus.yml"), cfg)
	// The kernel picks a free port; Prometheus takes it a moment later.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var log bytes.Buffer
	p.cmd = exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr,
		"--web.enable-remote-write-receiver", "--enable-feature=native-histograms")
	p.cmd.Stdout, p.cmd.Stderr = &log, &log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill() // by PID
		_ = p.cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", log.String())
		}
	})
	p.url = "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.url + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready on %s after 30s: %v\n%s", addr, err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// scrape points Prometheus at a /metrics address.
func (p *prometheus) scrape(t *testing.T, addr string) {
	t.Helper()
	tmp := p.targets + ".tmp"
	writeFile(t, tmp, fmt.Sprintf(`[{"targets": [%q]}]`, addr))
	if err := os.Rename(tmp, p.targets); err != nil {
		t.Fatal(err)
	}
}

// query evaluates an instant query at at and returns its single value
// (ok false: no result).
func (p *prometheus) query(t *testing.T, q string, at time.Time) (float64, bool) {
	t.Helper()
	vals := p.queryAll(t, q, at)
	if len(vals) > 1 {
		t.Fatalf("query %s: %d results, want one", q, len(vals))
	}
	if len(vals) == 0 {
		return 0, false
	}
	return vals[0], true
}

// queryAll evaluates an instant query at at and returns its values.
func (p *prometheus) queryAll(t *testing.T, q string, at time.Time) []float64 {
	t.Helper()
	v := url.Values{"query": {q}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64)}}
	resp, err := http.Get(p.url + "/api/v1/query?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "success" {
		t.Fatalf("query %s: %s", q, r.Error)
	}
	var out []float64
	for _, res := range r.Data.Result {
		s, _ := res.Value[1].(string)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("query %s: value %v", q, res.Value)
		}
		out = append(out, f)
	}
	return out
}

// await polls q until it has a value or 30 s pass.
func (p *prometheus) await(t *testing.T, q string) float64 {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if v, ok := p.query(t, q, time.Now()); ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("query %s: no result after 30s", q)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// syncBuffer is stderr that the test reads while the command writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runSummary is what the test needs of `dbrig run --json`.
type runSummary struct {
	RunID int64 `json:"run_id"`
	Ops   map[string]struct {
		Count int64   `json:"count"`
		P99   float64 `json:"p99_us"`
	} `json:"ops"`
}

// checkAgainstDbrig compares Prometheus's figures for the run with dbrig's
// own: the operation count exactly, the READ p99 within one native bucket.
func checkAgainstDbrig(t *testing.T, p *prometheus, sel string, at time.Time, sum runSummary) {
	t.Helper()
	var want int64
	for op, s := range sum.Ops {
		if op != "OVERALL" {
			want += s.Count
		}
	}
	got, ok := p.query(t, fmt.Sprintf(`sum(dbrig_operations_total{%s})`, sel), at)
	if !ok || int64(got) != want || want == 0 {
		t.Errorf("prometheus has %v operations (found %v), dbrig counted %d", got, ok, want)
	}
	q := fmt.Sprintf(`histogram_quantile(0.99, dbrig_operation_latency_seconds{%s,op="READ"})`, sel)
	p99, ok := p.query(t, q, at)
	dbrigP99 := sum.Ops["READ"].P99 / 1e6
	bucket := math.Exp2(1.0 / (1 << livemetrics.NativeSchema))
	t.Logf("%s: %v operations (dbrig %d); READ p99 %gs (dbrig %gs)", sel, got, want, p99, dbrigP99)
	if !ok || dbrigP99 <= 0 || p99/dbrigP99 > bucket*1.001 || dbrigP99/p99 > bucket*1.001 {
		t.Errorf("READ p99: prometheus %gs (found %v), dbrig %gs: want them within one native bucket (×%.3f)", p99, ok, dbrigP99, bucket)
	}
}

var metricsAddr = regexp.MustCompile(`live metrics on http://(\S+)/metrics`)

// TestLiveMetricsScrapedByPrometheus: a real Prometheus scrapes a sim run's
// /metrics; its operation count and p99 are dbrig's own.
func TestLiveMetricsScrapedByPrometheus(t *testing.T) {
	p := startPrometheus(t)
	store := filepath.Join(t.TempDir(), "r.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	var errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"run", "--driver", "sim", "--store", store, "-p", "recordcount=100",
			"-p", "sim.latency=500us", "--clients", "2", "--duration", "2m", "--json", "--quiet",
			"--metrics", "127.0.0.1:0"}, strings.NewReader(""), &out, &errOut)
	}()
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == ""; time.Sleep(20 * time.Millisecond) {
		if m := metricsAddr.FindStringSubmatch(errOut.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no metrics address in stderr:\n%s", errOut.String())
		}
	}
	p.scrape(t, addr)
	// Once Prometheus has seen the measure phase going, end the run; dbrig
	// then waits for one last scrape of its final figures.
	p.await(t, `dbrig_operations_total{job="dbrig",phase="measure",op="READ",result="success"} > 0`)
	cancel()
	code := <-done
	ended := time.Now()
	if code != 130 {
		t.Fatalf("exit %d, want 130 (interrupted): %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "waiting up to") {
		t.Errorf("dbrig did not wait for a last scrape:\n%s", errOut.String())
	}
	var sum runSummary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatalf("--json: %v\n%s", err, out.String())
	}
	time.Sleep(1500 * time.Millisecond) // the last scrape is committed
	sel := fmt.Sprintf(`job="dbrig",run_id="%d",phase="measure"`, sum.RunID)
	checkAgainstDbrig(t, p, sel, ended, sum)
	if v, ok := p.query(t, fmt.Sprintf(`dbrig_run_info{job="dbrig",run_id="%d",system="sim",workload="workloada"}`, sum.RunID), ended); !ok || v != 1 {
		t.Errorf("no dbrig_run_info for run %d", sum.RunID)
	}
}

// TestLiveMetricsRemoteWriteToPrometheus: a sim run pushes to a real
// Prometheus's remote-write receiver, native histograms included.
func TestLiveMetricsRemoteWriteToPrometheus(t *testing.T) {
	p := startPrometheus(t)
	store := filepath.Join(t.TempDir(), "r.db")
	code, out, errOut := dbrig(t, context.Background(), "run", "--driver", "sim", "--store", store, "-p", "recordcount=100",
		"-p", "sim.latency=500us", "--clients", "2", "--duration", "3s", "--json", "--quiet",
		"--remote-write", p.url+"/api/v1/write")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "remote write: ") || strings.Contains(errOut, "dropped") {
		t.Errorf("remote write's end line missing or with drops:\n%s", errOut)
	}
	var sum runSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	sel := fmt.Sprintf(`run_id="%d",phase="measure"`, sum.RunID)
	p.await(t, `dbrig_workers`)
	checkAgainstDbrig(t, p, sel, time.Now(), sum)
	// The classic buckets came too.
	if _, ok := p.query(t, fmt.Sprintf(`histogram_quantile(0.99, sum by (le) (dbrig_operation_latency_seconds_bucket{%s}))`, sel), time.Now()); !ok {
		t.Errorf("no classic buckets in Prometheus")
	}
	checkDashboard(t, p, sum.RunID)
}

// checkDashboard runs every query of the shipped Grafana dashboard against
// Prometheus holding a pushed run: each must be valid PromQL, and the
// panels a run always fills must show something.
func checkDashboard(t *testing.T, p *prometheus, runID int64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "grafana", "dbrig.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Annotations struct {
			List []struct {
				Name string `json:"name"`
				Expr string `json:"expr"`
			} `json:"list"`
		} `json:"annotations"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("deploy/grafana/dbrig.json: %v", err)
	}
	vars := strings.NewReplacer("$run", strconv.FormatInt(runID, 10), "$__rate_interval", "1m", "$__interval", "1m")
	// Pushed series have no staleness: now sees the run's last push.
	at := time.Now()
	filled := map[string]bool{"Throughput by operation": true, "Response time percentiles (measure and warmup)": true,
		"Dispatch lag (dbrig's own lateness)": true, "Throughput (successful ops/s)": true, "Workers": true, "Runs": true, "Phases": true}
	seen := 0
	check := func(title, expr string, first bool) {
		if expr == "" {
			return
		}
		n := len(p.queryAll(t, vars.Replace(expr), at))
		if filled[title] && first && n == 0 {
			t.Errorf("dashboard %q: %s shows nothing for run %d", title, expr, runID)
		}
		seen++
	}
	for _, pn := range d.Panels {
		for i, tg := range pn.Targets {
			check(pn.Title, tg.Expr, i == 0)
		}
	}
	for _, a := range d.Annotations.List {
		check(a.Name, a.Expr, true)
	}
	if seen < 10 {
		t.Errorf("dashboard has %d queries, want the panels' and annotations'", seen)
	}
}

// TestLiveMetricsDeadRemoteWrite: an endpoint nobody listens on costs the
// run nothing but a line saying what was dropped.
func TestLiveMetricsDeadRemoteWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/api/v1/write"
	ln.Close()
	store := filepath.Join(t.TempDir(), "r.db")
	code, _, errOut := dbrig(t, context.Background(), "run", "--driver", "null", "--store", store, "-p", "recordcount=10",
		"-p", "operationcount=2000", "--quiet", "--remote-write", dead)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !regexp.MustCompile(`remote write: 0 pushes .* [1-9][0-9]* dropped`).MatchString(errOut) {
		t.Errorf("no drop count at the end:\n%s", errOut)
	}
}

func TestLiveMetricsFlagsCheckedFirst(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	for _, tc := range []struct{ args []string }{
		{[]string{"run", "--driver", "null", "--store", store, "--metrics", "localhost"}},
		{[]string{"run", "--driver", "null", "--store", store, "--metrics", "127.0.0.1:99999"}},
		{[]string{"run", "--driver", "null", "--store", store, "--remote-write", "127.0.0.1:9090"}},
		{[]string{"bench", "x.yaml", "--remote-write", "ftp://x/y"}},
		{[]string{"rate", "--sla", "p99<1s", "--metrics", "nope"}},
		{[]string{"worker", "--coordinator", "http://127.0.0.1:1", "--index", "0", "--metrics", "a:b"}},
	} {
		code, _, errOut := dbrig(t, context.Background(), tc.args...)
		if code != 2 || !strings.Contains(errOut, "--metrics") && !strings.Contains(errOut, "--remote-write") {
			t.Errorf("%v: exit %d, %q; want 2 naming the flag", tc.args, code, errOut)
		}
	}
	if _, err := os.Stat(store); err == nil {
		t.Errorf("a bad flag still created the store")
	}
	// A port that is taken: exit 2 before the run starts, as serve.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, errOut := dbrig(t, context.Background(), "run", "--driver", "null", "--store", store, "--metrics", ln.Addr().String())
	if code != 2 || !strings.Contains(errOut, "--metrics") || strings.Contains(errOut, "run 1") {
		t.Errorf("--metrics on a taken port: exit %d, %q; want 2 before the run", code, errOut)
	}
}

// TestLiveMetricsBenchMatrix: a bench's runs each get their own run_id and
// a dbrig_run_info with the experiment's name and matrix values.
func TestLiveMetricsBenchMatrix(t *testing.T) {
	p := startPrometheus(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "sweep.yaml")
	writeFile(t, file, `name: live-sweep
system: {driver: sim, props: {sim.latency: 200us}}
dataset: {records: 100}
workload: {files: [workloadc]}
load: {model: closed, clients: 1, duration: 2s}
matrix:
  clients: [1, 2]
`)
	code, _, errOut := dbrig(t, context.Background(), "bench", file, "--store", filepath.Join(dir, "r.db"), "--quiet",
		"--remote-write", p.url+"/api/v1/write")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p.await(t, `dbrig_workers`)
	for _, c := range []string{"1", "2"} {
		q := fmt.Sprintf(`dbrig_run_info{experiment="live-sweep",system="sim",workload="workloadc",matrix_load_clients=%q}`, c)
		if v, ok := p.query(t, q, time.Now()); !ok || v != 1 {
			t.Errorf("no %s", q)
		}
	}
	// Two runs, two run ids, each with its own operations.
	runs := p.queryAll(t, `sum by (run_id) (dbrig_operations_total{phase="measure"})`, time.Now())
	if len(runs) != 2 || runs[0] == 0 || runs[1] == 0 {
		t.Errorf("operations by run: %v, want two runs with operations", runs)
	}
	// dbrig's own process is sampled when no cluster is up.
	if _, ok := p.query(t, `dbrig_node_memory_rss_bytes{node="dbrig"}`, time.Now()); !ok {
		t.Errorf("no dbrig_node_memory_rss_bytes for dbrig itself")
	}
}

// TestLiveMetricsRate: a rating's experiments reach Prometheus, each as its
// own run with its kind and target.
func TestLiveMetricsRate(t *testing.T) {
	p := startPrometheus(t)
	store := filepath.Join(t.TempDir(), "r.db")
	code, out, errOut := dbrig(t, context.Background(), "rate", "--store", store, "--driver", "sim", "-p", "recordcount=200", "-p", "sim.capacity=500",
		"--sla", "p95<20ms", "--sla-duration", "2s", "--duration", "1s", "--rate", "400", "--precision", "20%", "--json", "--quiet",
		"--steadiness", "0", "--remote-write", p.url+"/api/v1/write")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Steps []struct {
			Kind   string  `json:"kind"`
			Target float64 `json:"target"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Steps) == 0 {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	p.await(t, `dbrig_workers`)
	for _, s := range got.Steps {
		q := fmt.Sprintf(`dbrig_run_info{experiment="rate",matrix_kind=%q,matrix_rate="%g"}`, s.Kind, s.Target)
		if len(p.queryAll(t, q, time.Now())) == 0 {
			t.Errorf("no %s", q)
		}
	}
	if n := len(p.queryAll(t, `sum by (run_id) (dbrig_operations_total{phase="measure"})`, time.Now())); n < len(got.Steps) {
		t.Errorf("%d runs with operations, want one per step (%d)", n, len(got.Steps))
	}
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dbrig/dbrig/results"
)

const slaBench = `name: sla-check
system:
  driver: sim
  props: {sim.capacity: 2000}
dataset: {records: 100}
workload: {files: [workloada]}
load: {model: open, rate: 200, clients: 8, duration: 1s}
matrix:
  sla: [["p95<1s", "errors<1%"], ["p95<1us"]]
`

// bench checks every run against the file's SLA: the verdict is printed and
// stored with the run; a missed SLA makes the exit code 3.
func TestBenchSLAVerdict(t *testing.T) {
	dir := t.TempDir()
	file, store := filepath.Join(dir, "e.yaml"), filepath.Join(dir, "r.db")
	writeFile(t, file, slaBench)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"bench", file, "--store", store, "--quiet"}, strings.NewReader(""), &out, &errb)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (the second run misses p95<1us):\n%s\n%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "SLA p95<1s,errors<1%: met") || !strings.Contains(out.String(), "SLA p95<1µs: MISSED") {
		t.Errorf("verdicts not printed:\n%s", out.String())
	}
	if !strings.Contains(errb.String(), "run 2 missed its SLA: p95<1µs") {
		t.Errorf("stderr %q lacks the failure", errb.String())
	}
	st, err := results.OpenExisting(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id, want := range map[int64]float64{1: 1, 2: 0} {
		ms, err := st.RunMetrics(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) < 2 || ms[0].Name != "sla_ok" || ms[0].Value != want || !strings.HasPrefix(ms[1].Name, "sla:p95<") || ms[1].Unit != "ms" {
			t.Errorf("run %d metrics %+v, want sla_ok=%v then the terms", id, ms, want)
		}
	}
}

// Every mistake in an experiment file's sla and rate block is reported at
// file:line:column before anything runs, for an SLA term at the column
// inside the string.
func TestRateFileBadInput(t *testing.T) {
	head := "system: {driver: sim}\nworkload: {files: [workloada]}\n"
	tests := []struct {
		name, body string
		args       []string
		want       string
	}{
		{"sla column", `sla: ["p95<100ms", "p95<<5ms"]` + "\nrate: {}\n", nil, "e.yaml:3:25: sla[1]: latency limit \"<5ms\""},
		{"sla column plain", "sla: p95<100ms, errors<x\nrate: {}\n", nil, "e.yaml:3:24: sla: errors limit"},
		{"sla op", "sla: NOPE.p95<5ms\nrate: {}\n", nil, "e.yaml:3:6: sla: SLA term NOPE.p95<5ms: the workload has no operation"},
		{"no sla", "rate: {reset: keep}\n", nil, "e.yaml:3:7: rate: a rating needs an SLA"},
		{"reset", "sla: p95<5ms\nrate: {reset: teleport}\n", nil, `e.yaml:4:15: rate.reset: "teleport": expected one of`},
		{"precision", "sla: p95<5ms\nrate: {precision: 80%}\n", nil, `e.yaml:4:19: rate.precision: "80%"`},
		{"clients with rate", "sla: p95<5ms\nload: {rate: 100}\nrate: {by: clients}\n", nil, "e.yaml:4:14: load.rate: by clients"},
		{"probe by clients", "sla: p95<5ms\nrate: {by: clients, probe: true}\n", nil, "e.yaml:4:28: rate.probe: the probe measures the capacity a search by rate starts from, and by clients starts"},
		{"probe with start", "sla: p95<5ms\nload: {rate: 100}\nrate: {probe: true}\n", nil, "e.yaml:5:15: rate.probe: the probe measures the capacity a search by rate starts from, and the file gives the start"},
		{"probe flag with start", "sla: p95<5ms\nrate: {start: 200}\n", []string{"--probe"}, "--probe measures the capacity a search by rate starts from, and the file gives the start"},
		{"matrix", "sla: p95<5ms\nrate: {}\nmatrix: {clients: [1, 2]}\n", nil, "e.yaml:5:20: load.clients: a rating rates one experiment"},
		{"strategy", "sla: p95<5ms\nrate: {reset: snapshot}\n", nil, "strategies that work here: reload"},
		{"stale with dataintegrity", "sla: [p95<5ms, unpredictable=0]\nrate: {}\n", []string{"--set", "workload.props.dataintegrity=true"}, "e.yaml:3:16: sla[1]: an unpredictable term stamps"},
		{"run flag", "sla: p95<5ms\nrate: {}\n", []string{"--clients", "4"}, "--clients belongs in the experiment file"},
		{"set", "sla: p95<5ms\nrate: {}\n", []string{"--set", "rate.by=speed"}, `rate.by: "speed"`},
		{"votes", "sla: p95<5ms\nrate: {votes: 2}\n", nil, "e.yaml:4:15: rate.votes: 2: expected an odd number"},
		{"min_tail", "sla: p95<5ms\nrate: {min_tail: x}\n", nil, `e.yaml:4:18: rate.min_tail: expected an integer, got "x"`},
		{"settle", "sla: p95<5ms\nrate: {settle: 1s}\n", nil, `e.yaml:4:16: rate.settle: expected true or false`},
		{"set votes", "sla: p95<5ms\nrate: {}\n", []string{"--set", "rate.votes=4"}, "rate.votes: 4: expected an odd number"},
		{"set has no line", "sla: p95<5ms\nrate: {}\n", []string{"--set", "rate.reset=teleport"}, `--set rate.reset=teleport: rate.reset: "teleport": expected one of`},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"rate", "bench"} {
			if cmd == "bench" && len(tt.args) > 0 {
				continue
			}
			t.Run(tt.name+"/"+cmd, func(t *testing.T) {
				dir := t.TempDir()
				file := filepath.Join(dir, "e.yaml")
				writeFile(t, file, head+tt.body)
				var out, errb bytes.Buffer
				args := append([]string{cmd, file, "--store", filepath.Join(dir, "r.db")}, tt.args...)
				code := Main(context.Background(), args, strings.NewReader(""), &out, &errb)
				if code != 2 || !strings.Contains(errb.String(), tt.want) {
					t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), tt.want)
				}
				if strings.Contains(errb.String(), "results in") {
					t.Errorf("a rating started before the input was checked: %s", errb.String())
				}
			})
		}
	}
}

const rateBlockFile = `name: sim-rating
system:
  driver: sim
  props: {sim.capacity: 500}
dataset: {records: 200}
workload: {files: [workloada]}
load: {rate: 400}
sla: ["p95<20ms"]
rate:
  precision: 20%
  sla_duration: 2s
  step: 1s
`

// dbrig rate FILE and dbrig bench FILE rate the file's experiment with its
// rate block; flags win over the block.
func TestRateFile(t *testing.T) {
	dir := t.TempDir()
	file, store := filepath.Join(dir, "e.yaml"), filepath.Join(dir, "r.db")
	writeFile(t, file, rateBlockFile)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"rate", file, "--store", store, "--json", "--quiet", "--precision", "25%"},
		strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Throughput *float64 `json:"throughput"`
		SLA        string   `json:"sla"`
		Precision  float64  `json:"precision"`
		Steps      []struct {
			Kind   string
			Target float64
		}
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
	}
	if got.Throughput == nil || *got.Throughput <= 0 || *got.Throughput > 500*1.25 || got.SLA != "p95<20ms" || got.Precision != 0.25 ||
		len(got.Steps) < 4 || got.Steps[0].Kind != "reference" || got.Steps[1].Target != 400 {
		t.Errorf("JSON %s", out.String())
	}
	// dbrig report rating:ID renders it as a page.
	page := filepath.Join(dir, "rating.html")
	out.Reset()
	if code := Main(context.Background(), []string{"report", "rating:1", "--store", store, "-o", page}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Errorf("report rating:1: exit %d: %s", code, errb.String())
	} else if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "Rating 1: sim, workloada") || !strings.Contains(string(b), "data:image/png;base64,") {
		t.Errorf("report rating:1 wrote %d bytes, %v", len(b), err)
	}
	if code := Main(context.Background(), []string{"report", "rating:99", "--store", store, "-o", filepath.Join(dir, "x.html")}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("report rating:99: exit %d, want 2 (no such rating)", code)
	}
	// bench FILE with a rate block rates too; --dry-run says what it would do.
	out.Reset()
	code = Main(context.Background(), []string{"bench", file, "--store", store, "--dry-run"}, strings.NewReader(""), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "rating: SLA p95<20ms, by rate, reset reload, precision 20%, experiments of 1s, final run of 2s, start 400") {
		t.Errorf("exit %d, dry run:\n%s%s", code, out.String(), errb.String())
	}
}

// The rate block's votes, min_tail, warmup and settle reach the rating;
// rate's flags win over them.
func TestRateFileKeys(t *testing.T) {
	tests := []struct {
		name  string
		block string
		args  []string
		want  string
	}{
		{"defaults", "", nil, "votes 3, min tail 10, warmup default, settle true"},
		{"block", "  votes: 5\n  min_tail: 0\n  warmup: 0s\n  settle: false\n", nil, "votes 5, min tail 0, warmup none, settle false"},
		{"warmup", "  warmup: 300ms\n", nil, "warmup 300ms, settle true"},
		{"set", "", []string{"--set", "rate.votes=1", "--set", "rate.settle=false"}, "votes 1, min tail 10, warmup default, settle false"},
		{"flags win", "  votes: 5\n  min_tail: 3\n  settle: false\n", []string{"--votes", "1", "--min-tail", "20", "--settle=true"}, "votes 1, min tail 20, warmup default, settle true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { rateDryRun(t, rateBlockFile+tt.block, tt.args, tt.want) })
	}
}

// rateDryRun runs dbrig rate --dry-run on a file of text and wants its
// output to contain want.
func rateDryRun(t *testing.T, text string, args []string, want string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "e.yaml")
	writeFile(t, file, text)
	var out, errb bytes.Buffer
	code := Main(context.Background(), append([]string{"rate", file, "--store", filepath.Join(dir, "r.db"), "--dry-run"}, args...), strings.NewReader(""), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), want) {
		t.Errorf("exit %d, dry run:\n%s%s\nwant %q", code, out.String(), errb.String(), want)
	}
}

// Without a start (load.rate, rate.start), a rating by rate probes the
// capacity first; rate.probe: false or --probe=false start at 100 ops/s,
// and the flag wins over the block.
func TestRateFileProbe(t *testing.T) {
	noStart := strings.Replace(rateBlockFile, "load: {rate: 400}\n", "", 1)
	if noStart == rateBlockFile {
		t.Fatal("rateBlockFile has no load.rate line to remove")
	}
	tests := []struct {
		name, block string
		args        []string
		want        string
	}{
		{"default", "", nil, "start half the capacity probed,"},
		{"block", "  probe: false\n", nil, "start 100,"},
		{"flag", "", []string{"--probe=false"}, "start 100,"},
		{"flag wins", "  probe: false\n", []string{"--probe"}, "start half the capacity probed,"},
		{"a start needs no probe", "  start: 250\n", nil, "start 250,"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { rateDryRun(t, noStart+tt.block, tt.args, tt.want) })
	}
}

// bench counts stale reads for a run whose SLA limits them, and stores the
// counts with the verdict.
func TestBenchUnpredictable(t *testing.T) {
	dir := t.TempDir()
	file, store := filepath.Join(dir, "e.yaml"), filepath.Join(dir, "r.db")
	writeFile(t, file, `system: {driver: pebble}
dataset: {records: 200}
workload: {files: [workloada]}
load: {clients: 2, duration: 1s}
sla: ["unpredictable<0.01%"]
`)
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"bench", file, "--store", store, "--quiet"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "SLA unpredictable<0.01%: met — unpredictable<0.01%: 0%") {
		t.Errorf("verdict not printed:\n%s", out.String())
	}
	st, err := results.OpenExisting(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ms, err := st.RunMetrics(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, m := range ms {
		got[m.Name] = m.Value
	}
	if got["sla_ok"] != 1 || got["reads_checked"] < 10 || got["unpredictable_reads"] != 0 || got["wrong_reads"] != 0 {
		t.Errorf("metrics %v, want the SLA met with checked reads, none stale or wrong", got)
	}
}

const rateClusterFile = `name: etcd-rating
system:
  driver: etcd
  cluster: {recipe: etcd, nodes: 1}
dataset: {records: 200}
workload: {files: [workloada]}
load: {rate: 100}
sla: ["p99<2s"]
rate:
  reset: snapshot
  precision: 50%
  sla_duration: 1s
  step: 1s
  max: 200
  votes: 1
  warmup: 0s
`

// A rating of a file with system.cluster stands the cluster up once for
// all its experiments (they share its data: snapshot restores it), records
// its nodes with every run, and tears it down at the end.
func TestRateFileCluster(t *testing.T) {
	needBinary(t, "etcd")
	dir := t.TempDir()
	file, store := filepath.Join(dir, "e.yaml"), filepath.Join(dir, "r.db")
	writeFile(t, file, rateClusterFile)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"rate", file, "--store", store, "--json", "--quiet"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Steps []struct {
			Reset string `json:"reset"`
			RunID int64  `json:"run_id"`
		} `json:"steps"`
		Time struct {
			ClusterS float64 `json:"cluster_s"`
		} `json:"time"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
	}
	if len(got.Steps) < 2 || got.Time.ClusterS <= 0 {
		t.Fatalf("JSON %s", out.String())
	}
	st, err := results.OpenExisting(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pid := 0
	for i, s := range got.Steps {
		if i > 0 && s.Reset != "snapshot" {
			t.Errorf("step %d: reset %q, want snapshot (the data outlived the experiment)", i, s.Reset)
		}
		nodes, err := st.Nodes(context.Background(), s.RunID)
		if err != nil || len(nodes) != 1 {
			t.Fatalf("run %d: nodes %v, %v; want the cluster's node", s.RunID, nodes, err)
		}
		if i > 0 && nodes[0].PID != pid {
			t.Errorf("run %d ran on etcd pid %d, the first on %d: want one cluster for the rating", s.RunID, nodes[0].PID, pid)
		}
		pid = nodes[0].PID
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("etcd pid %d after the rating: kill 0 = %v, want it gone", pid, err)
	}
}

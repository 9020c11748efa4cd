package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/results"
)

// dbrig runs the CLI in-process and returns its exit code and outputs.
func dbrig(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(ctx, args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func openStore(t *testing.T, path string) *results.Store {
	t.Helper()
	s, err := results.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRunStoresRunAndPrintsJSON(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	code, out, errOut := dbrig(t, context.Background(), "run", "--driver", "null", "--store", store, "--json",
		"-P", "workloadb", "-p", "recordcount=500", "-p", "operationcount=20000", "-threads", "2", "--seed", "42")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var sum struct {
		RunID  int64  `json:"run_id"`
		Status string `json:"status"`
		Ops    map[string]struct {
			Count int64   `json:"count"`
			P99   float64 `json:"p99_us"`
		} `json:"ops"`
		Service map[string]struct {
			Count int64 `json:"count"`
		} `json:"service"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("stdout is not the JSON summary: %v\n%s", err, out)
	}
	reads, updates := sum.Ops["READ"].Count, sum.Ops["UPDATE"].Count
	if reads+updates != 20000 || updates == 0 || reads < 15*updates {
		t.Errorf("workload B over 20000 ops: READ %d, UPDATE %d; want 95/5 summing to 20000", reads, updates)
	}
	if sum.Service["READ"].Count != reads {
		t.Errorf("service READ count %d != response count %d", sum.Service["READ"].Count, reads)
	}
	d, err := openStore(t, store).Run(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != "done" || d.Info.Load.Clients != 2 || d.Info.Load.Seed != 42 || d.Info.Props["recordcount"] != "500" {
		t.Errorf("stored run context: status %q clients %d seed %d recordcount %q", d.Status, d.Info.Load.Clients, d.Info.Load.Seed, d.Info.Props["recordcount"])
	}
	// Drivers size their pools from threadcount, so -threads must reach it.
	if got := d.Info.Props["threadcount"]; got != "2" {
		t.Errorf("stored threadcount = %q, want 2 (from -threads)", got)
	}
	m, ok := d.Phase("measure")
	if !ok || m.Overall.Count != 20000 {
		t.Errorf("stored measure phase: ok=%v count=%d, want 20000", ok, m.Overall.Count)
	}
	if _, ok := d.Phase("load"); !ok {
		t.Error("load phase not stored")
	}
}

func TestBadInputIsRejectedBeforeAnyRun(t *testing.T) {
	// dbrig run reads mysql.dsn from what dbrig cluster env exports (the
	// test servers' variables): unset, the property is missing.
	t.Setenv("DBRIG_MYSQL_DSN", "")
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	badFile := filepath.Join(dir, "bad.props")
	writeFile(t, badFile, "recordcount=10\nreadproportion=zero\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"typo in property", []string{"-p", "readproprtion=0.5"}, `unknown property "readproprtion" (did you mean "readproportion"?)`},
		{"negative count", []string{"-p", "recordcount=-5"}, "recordcount"},
		{"bad value in file", []string{"-P", badFile}, "bad.props:2"},
		{"unreadable file", []string{"-P", filepath.Join(dir, "missing")}, "missing"},
		{"unknown distribution", []string{"-p", "requestdistribution=zipf"}, "requestdistribution"},
		{"all proportions zero", []string{"-p", "readproportion=0", "-p", "updateproportion=0"}, "proportion"},
		{"unknown driver", []string{"--driver", "nosuch"}, `unknown driver "nosuch"`},
		{"bad flag value", []string{"--clients", "x"}, "clients"},
		{"zero clients", []string{"--clients", "0"}, "at least 1"},
		{"open model without rate", []string{"--model", "open"}, "rate"},
		{"bad model", []string{"--model", "sideways", "--rate", "10"}, "sideways"},
		{"stray argument", []string{"workloada"}, "unexpected argument"},
		{"no bound", []string{"-P", "workloada", "-p", "operationcount=0"}, "bound"},
		{"missing driver property", []string{"--driver", "mysql"}, "property mysql.dsn is required"},
		{"negative rate", []string{"--rate", "-3"}, "--rate -3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--driver", "null", "--store", store, "-p", "recordcount=10"}, tc.args...)
			if tc.name == "unknown driver" || tc.name == "bad model" {
				args = append([]string{"run", "--store", store, "-p", "recordcount=10"}, tc.args...)
			}
			code, _, errOut := dbrig(t, context.Background(), args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2; stderr: %s", code, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q lacks %q", errOut, tc.want)
			}
		})
	}
	runs, err := openStore(t, store).ListRuns(context.Background(), results.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 0 {
		t.Errorf("bad input left %d runs in the store", len(runs))
	}
}

func TestInterruptedRunIsStored(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2500*time.Millisecond, cancel)
	start := time.Now()
	code, _, errOut := dbrig(t, ctx, "run", "--driver", "sim", "--store", store, "-p", "recordcount=100",
		"-p", "sim.latency=1ms", "--duration", "60s", "--quiet")
	if code != 130 {
		t.Fatalf("exit code %d, want 130; stderr: %s", code, errOut)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("interrupt took %v to stop the run", took)
	}
	runs, err := openStore(t, store).ListRuns(context.Background(), results.Filter{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v, %v", runs, err)
	}
	if runs[0].Status != "interrupted" || runs[0].Count == 0 {
		t.Errorf("run status %q with %d measured ops, want interrupted with some", runs[0].Status, runs[0].Count)
	}
	ivs, err := openStore(t, store).Intervals(context.Background(), runs[0].ID)
	if err != nil || len(ivs) < 2 {
		t.Errorf("intervals of the interrupted run: %d, %v", len(ivs), err)
	}
}

func TestValidateShort(t *testing.T) {
	// The check is against wall-clock time: it needs a machine that is not
	// busy with other tests. scripts/test runs it alone, after the others.
	if os.Getenv("DBRIG_TIMING_TESTS") != "1" {
		t.Skip("timing-sensitive: set DBRIG_TIMING_TESTS=1 on an otherwise idle machine (scripts/test does)")
	}
	store := filepath.Join(t.TempDir(), "r.db")
	code, out, errOut := dbrig(t, context.Background(), "validate", "--short", "--store", store)
	if code != 0 || !strings.Contains(out, "PASS") {
		t.Fatalf("validate --short: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "closed loop, send time") {
		t.Errorf("validate does not show the coordinated-omission figure:\n%s", out)
	}
}

func TestRunsCommands(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	for i := 0; i < 2; i++ {
		if code, _, errOut := dbrig(t, context.Background(), "run", "--driver", "null", "--store", store, "--quiet",
			"-p", "recordcount=10", "-p", "operationcount=100", "--tag", "t1"); code != 0 {
			t.Fatalf("run: %s", errOut)
		}
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"runs", "list", "--store", store}, 0, "null"},
		{[]string{"runs", "show", "1", "--store", store}, 0, "READ"},
		{[]string{"runs", "compare", "1", "2", "--store", store}, 0, "READ"},
		{[]string{"runs", "show", "99", "--store", store}, 2, "no such run"}, // bad input, as the README promises,
		{[]string{"runs", "show", "x", "--store", store}, 2, "expected a positive number"},
		{[]string{"runs", "frobnicate", "--store", store}, 2, "unknown subcommand"},
	}
	for _, tc := range tests {
		code, out, errOut := dbrig(t, context.Background(), tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("dbrig %v: exit %d (want %d), output lacks %q:\n%s%s", tc.args, code, tc.code, tc.want, out, errOut)
		}
	}
}

// Two runs writing to one store at the same time must both be stored whole.
func TestConcurrentRunsShareAStore(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	errs := make(chan string, 2)
	for i := 0; i < 2; i++ {
		go func() {
			code, _, errOut := dbrig(t, context.Background(), "run", "--driver", "sim", "--store", store, "--quiet",
				"-p", "recordcount=100", "-p", "sim.latency=200us", "--duration", "3s", "-p", "operationcount=0")
			if code != 0 {
				errOut = "exit " + strconv.Itoa(code) + ": " + errOut
			} else {
				errOut = ""
			}
			errs <- errOut
		}()
	}
	for i := 0; i < 2; i++ {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
	s := openStore(t, store)
	runs, err := s.ListRuns(context.Background(), results.Filter{})
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs: %d, %v; want 2", len(runs), err)
	}
	for _, r := range runs {
		ivs, err := s.Intervals(context.Background(), r.ID)
		if r.Status != "done" || err != nil || len(ivs) < 3 {
			t.Errorf("run %d: status %s, %d intervals (%v)", r.ID, r.Status, len(ivs), err)
		}
	}
}

// No output may overwrite the results store or another output, and a path
// that cannot be written is bad input before anything runs or is stored.
func TestOutputsNeverOverwriteTheStore(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	code, _, errOut := dbrig(t, context.Background(), "run", "--driver", "null", "--store", store, "--quiet",
		"-p", "recordcount=10", "-p", "operationcount=100")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	before, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	pebbleDir := filepath.Join(dir, "pebble")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"report over the store", []string{"report", "1", "--store", store, "-o", store}, "results store"},
		{"hdrlog over the store", []string{"run", "--driver", "null", "--store", store, "-p", "recordcount=10", "--hdrlog", store}, "results store"},
		{"hdrlog inside the data dir", []string{"run", "--store", store, "-p", "recordcount=10", "-p", "pebble.dir=" + pebbleDir, "--hdrlog", filepath.Join(pebbleDir, "x")}, "pebble.dir"},
		{"report to a directory", []string{"report", "1", "--store", store, "-o", dir}, "is a directory"},
		{"report of an unknown run", []string{"report", "99", "--store", store, "-o", filepath.Join(dir, "x.html")}, "99"},
		{"runs list with a bogus status", []string{"runs", "list", "--store", store, "--status", "bogus"}, "bogus"},
	}
	os.Mkdir(pebbleDir, 0o755)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := dbrig(t, context.Background(), tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and a message mentioning %q", code, errOut, tc.want)
			}
		})
	}
	after, err := os.ReadFile(store)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the results store changed (%d → %d bytes, %v)", len(before), len(after), err)
	}
	if runs, _ := openStore(t, store).ListRuns(context.Background(), results.Filter{}); len(runs) != 1 {
		t.Errorf("%d runs stored, want only the first", len(runs))
	}
	// -o into a missing directory creates it, as --png does.
	out := filepath.Join(dir, "new", "sub", "r.html")
	if code, _, errOut := dbrig(t, context.Background(), "report", "1", "--store", store, "-o", out); code != 0 {
		t.Fatalf("report into a new directory: exit %d: %s", code, errOut)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Errorf("report not written: %v", err)
	}
}

// Listening on every interface is allowed but said loudly: the dashboard has
// no login.
func TestServeWarnsOffLoopback(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	openStore(t, store)
	for _, tc := range []struct {
		addr string
		warn bool
	}{{"127.0.0.1:0", false}, {":0", true}} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		code, _, errOut := dbrig(t, ctx, "serve", "--store", store, "--addr", tc.addr)
		if code != 0 || strings.Contains(errOut, "reachable from other machines") != tc.warn {
			t.Errorf("serve --addr %s: exit %d, warned %v, want warned %v; stderr %q", tc.addr, code, !tc.warn, tc.warn, errOut)
		}
	}
}

func TestBenchExample(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	example := filepath.Join("..", "..", "examples", "pebble-clients-sweep.yaml")
	code, out, errOut := dbrig(t, context.Background(), "bench", example, "--dry-run", "--store", store)
	if code != 0 || strings.Count(out, "\nrun ") != 3 || !strings.Contains(out, "closed, 16 clients") {
		t.Fatalf("--dry-run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = dbrig(t, context.Background(), "bench", example, "--store", store, "--json", "--quiet",
		"--set", "duration=1s", "--set", "warmup=0s", "--set", "records=2000")
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	var doc struct {
		Experiment string `json:"experiment"`
		Runs       []struct {
			RunID  int64             `json:"run_id"`
			Status string            `json:"status"`
			Matrix map[string]string `json:"matrix"`
			Ops    map[string]struct {
				Count int64 `json:"count"`
			} `json:"ops"`
		} `json:"runs"`
		Events []any `json:"events"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if doc.Experiment != "pebble-clients-sweep" || len(doc.Runs) != 3 || doc.Events == nil {
		t.Fatalf("JSON: %+v", doc)
	}
	for i, r := range doc.Runs {
		want := []string{"1", "4", "16"}[i]
		if r.Status != "done" || r.Matrix["load.clients"] != want || r.Ops["OVERALL"].Count == 0 {
			t.Errorf("run %d: %+v", i, r)
		}
	}
	if code, _, errOut := dbrig(t, context.Background(), "bench", example, "--set", "clients=many"); code != 2 || !strings.Contains(errOut, "load.clients") {
		t.Errorf("bad --set: exit %d, %s", code, errOut)
	}
}

// A store whose disk fills up mid-run: the run says it was not stored
// completely (never "stored"), exits non-zero, and what was written before
// stays readable. Needs root to mount a tiny tmpfs (CI runs as root).
func TestFullDiskIsNotCalledStored(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	store := filepath.Join(dir, "r.db")
	openStore(t, store).Close() // the schema fits; then leave room for the run's first rows only
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	if err := os.WriteFile(filepath.Join(dir, "filler"), make([]byte, free-160<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := dbrig(t, context.Background(), "run", "--driver", "null", "--store", store, "--quiet",
		"-P", "workloada", "-p", "recordcount=100", "-p", "operationcount=0", "--duration", "3s")
	if code == 0 || !strings.Contains(out, "NOT stored completely") || strings.Contains(out, "stored (") {
		t.Errorf("exit %d; stdout:\n%s\nstderr:\n%s\nwant a non-zero exit and 'NOT stored completely'", code, out, errOut)
	}
	code, list, errOut := dbrig(t, context.Background(), "runs", "list", "--store", store)
	if code != 0 || !strings.Contains(list, "null") {
		t.Errorf("runs list after the full disk: exit %d\n%s%s", code, list, errOut)
	}
}

// The summary of dbrig run says when dbrig itself shaped the latencies: a
// generator starved of CPU (goroutines spinning on every core) is late by
// far more than a tenth of what it measures, on a calm machine and more so
// on a busy one. That an idle generator is not warned about is decided on
// the figures (report.TestSummaryGeneratorLateWarning,
// analysis.TestGeneratorLate): a run here could not tell an idle generator
// from one on a machine busy with other tests (beside eight CPU burners, at
// load 20, an idle run at 20 ops/s against a 200 ms system had a dispatch
// lag p99 of 88–288 ms, and was warned about).
func TestGeneratorLateWarning(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	const warning = "warning: the load generator was late"
	stop := testenv.StarveCPU()
	code, out, errOut := dbrig(t, context.Background(), "run", "--driver", "null", "--store", store, "--quiet",
		"-P", "workloadc", "-p", "recordcount=100", "--rate", "2000", "--clients", "4", "--duration", "2s")
	stop()
	if code != 0 || !strings.Contains(out, warning) || !strings.Contains(out, "dispatch lag (dbrig's own lateness") {
		t.Errorf("starved run: exit %d, warned %v, lag shown %v:\n%s%s", code, strings.Contains(out, warning), strings.Contains(out, "dispatch lag"), out, errOut)
	}
}

// A load that would take hours is said so early; dbrig load --duration
// loads part of it and says the data set is partial.
func TestLoadETAAndDuration(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2500*time.Millisecond, cancel)
	code, _, errOut := dbrig(t, ctx, "load", "--driver", "null", "--store", store, "--quiet", "-p", "recordcount=10000000000000")
	if code != 130 || !strings.Contains(errOut, "would take about") {
		t.Errorf("an endless load: exit %d, no warning:\n%s", code, errOut)
	}
	code, out, errOut := dbrig(t, context.Background(), "load", "--driver", "null", "--store", store, "--quiet", "-p", "recordcount=10000000000000", "--duration", "1s")
	if code != 0 || !strings.Contains(out, "the data set is partial") || strings.Contains(errOut, "would take about") {
		t.Errorf("load --duration 1s: exit %d\n%s%s", code, out, errOut)
	}
}

// The completion script offers the properties the unknown-property check
// knows (drivers' declarations, the workload's and the runner's keys), and
// bash runs it: completing "-p recordc" gives recordcount=.
func TestBashCompletion(t *testing.T) {
	code, out, errOut := dbrig(t, context.Background(), "completion", "bash")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"redis.password=", "pg.url=", "recordcount=", "threadcount=", "maxexecutiontime=", "--clients", "workloada", "hazelcast"} {
		if !strings.Contains(out, want) {
			t.Errorf("completion lacks %q", want)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := filepath.Join(t.TempDir(), "c.bash")
	os.WriteFile(script, []byte(out), 0o644)
	probe := `source ` + script + `; COMP_WORDS=(dbrig run -p recordc); COMP_CWORD=3; _dbrig; echo "${COMPREPLY[@]}"`
	got, err := exec.Command(bash, "-c", probe).CombinedOutput()
	if err != nil || strings.TrimSpace(string(got)) != "recordcount=" {
		t.Errorf("bash completes -p recordc to %q (%v), want recordcount=", got, err)
	}
	if code, _, _ := dbrig(t, context.Background(), "completion", "fish"); code != 2 {
		t.Errorf("completion fish: exit %d, want 2", code)
	}
}

// A --cpus list that does not parse or names a CPU the machine lacks is
// bad input before anything runs, on every command that takes it.
func TestCPUsBadInput(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--driver", "null", "--cpus", "0-x"}, `--cpus: cpu list "0-x"`},
		{[]string{"load", "--driver", "null", "--cpus", "2-1"}, "runs backwards"},
		{[]string{"rate", "--driver", "sim", "--sla", "p95<50ms", "--cpus", "1000"}, "CPU 1000 is not among this machine's usable CPUs"},
		{[]string{"bench", "x.yaml", "--cpus", ","}, `--cpus: cpu list ","`},
		{[]string{"cluster", "up", "redis", "--cpus", "1000", "--state", filepath.Join(t.TempDir(), "s.json")}, "CPU 1000"},
	} {
		args := tc.args
		if args[0] != "cluster" {
			args = append(args, "--store", store)
		}
		code, _, errOut := dbrig(t, context.Background(), args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if _, err := os.Stat(store); err == nil {
		t.Error("the store was created: something ran")
	}
}

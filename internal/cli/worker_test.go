package cli

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWorkerFlagsBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workers", "-1"}, "--workers -1"},
		{[]string{"run", "--listen", "127.0.0.1:0"}, "belong to --workers"},
		{[]string{"run", "--workers", "2", "--connect-timeout", "0s"}, "--connect-timeout"},
		{[]string{"run", "--driver", "null", "-p", "recordcount=3", "--clients", "8", "--workers", "4"}, "inserts 3 records"},
		{[]string{"run", "--driver", "null", "-p", "recordcount=100", "--clients", "2", "--workers", "4"}, "2 clients"},
		{[]string{"run", "--driver", "null", "-p", "recordcount=100", "--rate", "3", "--duration", "1s", "--workers", "4"}, "below 1 op/s"},
		{[]string{"run", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, "belong to --workers"},
		{[]string{"run", "--workers", "2", "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"run", "--workers", "2", "--spawn=false", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--tls-ca", "ca.pem"}, "give it to dbrig worker"},
		{[]string{"run", "--driver", "null", "-p", "recordcount=100", "--clients", "2", "--workers", "2", "--tls-cert", "/nonexistent/c.pem", "--tls-key", "/nonexistent/k.pem"}, "--tls-cert /nonexistent/c.pem"},
		{[]string{"worker", "--coordinator", "https://127.0.0.1:1", "--index", "0", "--tls-ca", "/nonexistent/ca.pem"}, "--tls-ca /nonexistent/ca.pem"},
		{[]string{"worker", "--coordinator", "127.0.0.1:1", "--index", "0"}, "expected http://HOST:PORT or https://"},
		{[]string{"worker"}, "--coordinator URL is required"},
		{[]string{"worker", "--coordinator", "http://127.0.0.1:1"}, "no index"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Setenv("DBRIG_WORKER_INDEX", "")
			t.Setenv("JOB_COMPLETION_INDEX", "")
			code, _, stderr := dbrig(t, context.Background(), append(tt.args, "--store", filepath.Join(t.TempDir(), "r.db"))...)
			if tt.args[0] == "worker" {
				code, _, stderr = dbrig(t, context.Background(), tt.args...)
			}
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestRunWorkersNoSpawn is the Kubernetes shape on one machine: the
// coordinator (--spawn=false) waits on a fixed address, and two dbrig
// worker commands join it, one by --index, one by JOB_COMPLETION_INDEX.
func TestRunWorkersNoSpawn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	store := filepath.Join(t.TempDir(), "r.db")
	t.Setenv("DBRIG_TOKEN", "s3cret-token")
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i, args := range [][]string{
		{"worker", "--coordinator", "http://" + addr, "--index", "0", "--connect-timeout", "20s"},
		{"worker", "--coordinator", "http://" + addr, "--connect-timeout", "20s"},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = dbrig(t, ctx, args...)
		}()
	}
	code, stdout, stderr := dbrig(t, ctx, "run", "--driver", "null", "-p", "recordcount=100", "-p", "operationcount=1001",
		"--clients", "2", "--workers", "2", "--spawn=false", "--listen", addr, "--store", store, "--quiet")
	wg.Wait()
	if code != 0 {
		t.Fatalf("run exit %d\n%s\n%s", code, stdout, stderr)
	}
	if codes[0] != 0 || codes[1] != 0 {
		t.Errorf("worker exits %v, want 0 0", codes)
	}
	if !strings.Contains(stdout, "1,001") || !strings.Contains(stdout, "stored (done)") {
		t.Errorf("summary does not show the 1,001 merged operations:\n%s", stdout)
	}
	if strings.Contains(stdout+stderr, "s3cret-token") {
		t.Error("the token was printed")
	}
	s := openStore(t, store)
	ws, err := s.Workers(context.Background(), 1)
	if err != nil || len(ws) != 2 || ws[0].Ops+ws[1].Ops != 1001 {
		t.Errorf("worker rows %+v, %v: want 2 adding up to 1001 operations", ws, err)
	}
	// runs show --json has the per-worker figures.
	code, stdout, stderr = dbrig(t, ctx, "runs", "show", "1", "--json", "--store", store)
	if code != 0 {
		t.Fatalf("runs show --json: exit %d: %s", code, stderr)
	}
	var shown struct {
		RunID   int64 `json:"run_id"`
		Workers struct {
			Phase   string `json:"phase"`
			Workers []struct {
				Index     int     `json:"index"`
				Ops       int64   `json:"ops"`
				P99US     int64   `json:"p99_us"`
				OpsPerSec float64 `json:"throughput"`
				Status    string  `json:"status"`
			} `json:"workers"`
			Flags []string `json:"flags"`
		} `json:"workers"`
	}
	if err := json.Unmarshal([]byte(stdout), &shown); err != nil {
		t.Fatalf("runs show --json: %v\n%s", err, stdout)
	}
	w := shown.Workers
	if shown.RunID != 1 || w.Phase != "measure" || len(w.Workers) != 2 || w.Workers[0].Ops+w.Workers[1].Ops != 1001 {
		t.Errorf("runs show --json workers = %+v, want the measure phase of 2 workers adding up to 1001 operations", w)
	}
	for _, f := range w.Workers {
		// The null driver answers in under a microsecond: p99 may be 0 µs
		// (workers' TestSlowWorkerFlagged checks real percentiles).
		if f.Status != "done" || f.P99US < 0 || f.OpsPerSec <= 0 || !strings.Contains(stdout, `"dispatch_lag_p99_us"`) {
			t.Errorf("worker %+v: want done, a p99 and a throughput", f)
		}
	}

	// run --workers --json prints the same per-worker figures at once.
	for i, args := range [][]string{
		{"worker", "--coordinator", "http://" + addr, "--index", "0", "--connect-timeout", "20s"},
		{"worker", "--coordinator", "http://" + addr, "--connect-timeout", "20s"},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = dbrig(t, ctx, args...)
		}()
	}
	code, stdout, stderr = dbrig(t, ctx, "run", "--driver", "null", "-p", "recordcount=100", "-p", "operationcount=1001",
		"--clients", "2", "--workers", "2", "--spawn=false", "--listen", addr, "--store", store, "--quiet", "--json")
	wg.Wait()
	if code != 0 {
		t.Fatalf("run --json exit %d\n%s\n%s", code, stdout, stderr)
	}
	var ran struct {
		RunID   int64           `json:"run_id"`
		Workers json.RawMessage `json:"workers"`
	}
	if err := json.Unmarshal([]byte(stdout), &ran); err != nil || ran.RunID != 2 {
		t.Fatalf("run --json: run %d, %v\n%s", ran.RunID, err, stdout)
	}
	_, shownOut, _ := dbrig(t, ctx, "runs", "show", "2", "--json", "--store", store)
	var again struct {
		Workers json.RawMessage `json:"workers"`
	}
	if err := json.Unmarshal([]byte(shownOut), &again); err != nil || len(ran.Workers) == 0 || string(ran.Workers) != string(again.Workers) {
		t.Errorf("run --workers --json workers = %s, want what runs show --json prints: %s (%v)", ran.Workers, again.Workers, err)
	}
}

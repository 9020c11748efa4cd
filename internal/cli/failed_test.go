package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// A run whose operations mostly failed is not done: it is stored failed,
// with how many failed, its throughput counts the successes only, and the
// exit code is 5.
func TestMostlyFailedRun(t *testing.T) {
	tests := []struct {
		name       string
		props      []string
		wantCode   int
		wantStatus string
		wantMsg    string
		wantTput   bool // a throughput above 0
	}{
		{"reads of keys never loaded", []string{"readproportion=1", "updateproportion=0"}, 5, "failed",
			"100% of operations failed (500 of 500 in the measure phase; a run fails above 50%)", false},
		{"inserts", []string{"readproportion=0", "updateproportion=0", "insertproportion=1"}, 0, "done", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "r.db")
			args := []string{"run", "--driver", "pebble", "--store", store, "--quiet", "--skip-load", "-P", "workloada",
				"-p", "recordcount=100", "-p", "operationcount=500"}
			for _, p := range tt.props {
				args = append(args, "-p", p)
			}
			code, out, errOut := dbrig(t, context.Background(), args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %s%s", code, tt.wantCode, out, errOut)
			}
			if tt.wantMsg != "" && !strings.Contains(errOut, tt.wantMsg) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantMsg, errOut)
			}
			d, err := openStore(t, store).Run(context.Background(), 1)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status != tt.wantStatus || d.Message != tt.wantMsg {
				t.Errorf("stored status %q message %q, want %q %q", d.Status, d.Message, tt.wantStatus, tt.wantMsg)
			}
			m, ok := d.Phase("measure")
			if !ok || (m.Overall.Throughput > 0) != tt.wantTput {
				t.Errorf("stored throughput %v (phase ok=%v), want above 0: %v", m.Overall.Throughput, ok, tt.wantTput)
			}
		})
	}
}

// Exit code 5 only when every failure is a run whose operations mostly
// failed (a bench's runs are joined); any other failure with it is 1.
func TestExitCodeMostlyFailed(t *testing.T) {
	fe := &measure.FailedError{Phase: "measure", Count: 10, Errors: 9}
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"one run", fmt.Errorf("run 3 failed: %w", errors.Join(fe)), 5},
		{"two bench runs", errors.Join(fmt.Errorf("run 1/2: %w", fe), fmt.Errorf("run 2/2: %w", fe)), 5},
		{"with another failure", errors.Join(fmt.Errorf("run 1/2: %w", fe), errors.New("run 2/2: connection refused")), 1},
		{"joined under a wrap", fmt.Errorf("run 1: %w", errors.Join(fe, errors.New("store phase: disk full"))), 1},
		{"other", errors.New("boom"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(io.Discard, tt.err); got != tt.want {
				t.Errorf("exit code %d, want %d", got, tt.want)
			}
		})
	}
}

// runs list leaves a rating's experiments out unless --rating-steps, and
// shows an early-stopped one as stopped, not interrupted.
func TestRunsListRatingSteps(t *testing.T) {
	ctx := context.Background()
	store := filepath.Join(t.TempDir(), "r.db")
	s := openStore(t, store)
	plain, err := s.CreateRun(ctx, results.RunInfo{Name: "plain-run", System: "null", Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	step, err := s.CreateRun(ctx, results.RunInfo{Name: "step-run", System: "null", Tags: []string{"rating:1"}, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, plain, results.StatusDone, time.Now(), ""); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, step, results.StatusStopped, time.Now(), "stopped early: p99 over"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args      []string
		want, not []string
	}{
		{[]string{"runs", "list", "--store", store}, []string{"plain-run"}, []string{"step-run"}},
		{[]string{"runs", "list", "--store", store, "--rating-steps"}, []string{"plain-run", "step-run", "stopped"}, []string{"interrupted"}},
		{[]string{"runs", "list", "--store", store, "--rating-steps", "--status", "stopped"}, []string{"step-run"}, []string{"plain-run"}},
		{[]string{"runs", "list", "--store", store, "--tag", "rating:1"}, []string{"step-run"}, []string{"plain-run"}},
	}
	for _, tt := range tests {
		code, out, errOut := dbrig(t, ctx, tt.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errOut)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: lacks %q:\n%s", tt.args, w, out)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(out, n) {
				t.Errorf("%v: has %q:\n%s", tt.args, n, out)
			}
		}
	}
}

// -P workloadc --duration: the file's operationcount is named before the
// run (stderr) and, having ended it early, in the summary; with -p
// operationcount=0 the run is timed and nothing is said.
func TestRunCountCapSaid(t *testing.T) {
	tests := []struct {
		name          string
		extra         []string
		warned, noted bool
	}{
		// 1,000 null operations take milliseconds: far less than a minute.
		{"capped", []string{"--duration", "60s"}, true, true},
		{"timed", []string{"-p", "operationcount=0", "--duration", "1s"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "r.db")
			args := append([]string{"run", "--driver", "null", "--store", store, "--quiet", "-P", "workloadc",
				"-p", "recordcount=100"}, tt.extra...)
			code, out, errOut := dbrig(t, context.Background(), args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			warned := strings.Contains(errOut, "warning: workloadc (built-in):13 sets operationcount=1000") &&
				strings.Contains(errOut, "-p operationcount=0")
			noted := strings.Contains(out, "note: the measure phase ended after operationcount=1000 operations")
			if warned != tt.warned || noted != tt.noted {
				t.Errorf("warned %v noted %v, want %v %v\nstdout:\n%s\nstderr:\n%s", warned, noted, tt.warned, tt.noted, out, errOut)
			}
		})
	}
}

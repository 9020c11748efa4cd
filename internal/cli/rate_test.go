package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestRateBadInput(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no sla", []string{"--driver", "sim"}, "expected an SLA"},
		{"bad sla", []string{"--sla", "p95<<5ms"}, "column 5"},
		{"clients with rate", []string{"--sla", "p95<5ms", "--by", "clients", "--rate", "5"}, "remove --rate"},
		{"range", []string{"--sla", "p95<5ms", "--rate", "500", "--max", "100"}, "cannot contain an answer"},
		{"probe by clients", []string{"--sla", "p95<5ms", "--by", "clients", "--probe"}, "--by clients starts at --clients"},
		{"probe with rate", []string{"--sla", "p95<5ms", "--rate", "500", "--probe"}, "--rate gives the start: remove one"},
		{"strategy", []string{"--sla", "p95<5ms", "--reset", "snapshot"}, "strategies that work here: reload"},
		{"unknown strategy", []string{"--sla", "p95<5ms", "--reset", "teleport"}, "expected one of"},
		{"precision", []string{"--sla", "p95<5ms", "--precision", "80%"}, "at most 50%"},
		{"op", []string{"--sla", "NOPE.p95<5ms"}, "no operation"},
		{"steadiness", []string{"--sla", "p95<5ms", "--steadiness", "100ms"}, "--steadiness 100ms: expected 0 (skip) or at least 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append([]string{"rate", "--store", store, "--driver", "sim"}, tt.args...)
			code := Main(context.Background(), args, strings.NewReader(""), &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), tt.want)
			}
			if strings.Contains(errb.String(), "rating ") {
				t.Errorf("a rating started before the input was checked: %s", errb.String())
			}
		})
	}
}

// A short rating of the simulated store, printed as a table and as JSON,
// then shown again from the store.
func TestRateJSON(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"rate", "--store", store, "--driver", "sim", "-p", "recordcount=200", "-p", "sim.capacity=500",
		"--sla", "p95<20ms", "--sla-duration", "2s", "--duration", "1s", "--rate", "400", "--precision", "20%", "--json", "--quiet"},
		strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Throughput *float64 `json:"throughput"`
		SLA        string   `json:"sla"`
		Strategy   string   `json:"strategy"`
		Steps      []struct {
			Target, Achieved float64
			Pass             bool
			RunID            int64 `json:"run_id"`
			Terms            []map[string]any
		}
		Time map[string]float64
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
	}
	// The answer is where the final runs pass as often as they fail: the
	// capacity, or above it by less than the precision.
	if got.Throughput == nil || *got.Throughput <= 0 || *got.Throughput > 500*1.2 || got.SLA != "p95<20ms" || got.Strategy != "reload" || len(got.Steps) < 2 {
		t.Errorf("JSON %s", out.String())
	}
	if got.Time["total_s"] <= 0 || got.Time["experiments_s"] <= 0 || got.Time["final_s"] <= 0 {
		t.Errorf("time %v", got.Time)
	}
	if !strings.Contains(errb.String(), "answer: ") || !strings.Contains(errb.String(), "η·δ") {
		t.Errorf("the table (stderr with --json) lacks the answer or the time split:\n%s", errb.String())
	}
	var shown bytes.Buffer
	if code := Main(context.Background(), []string{"rate", "show", "1", "--store", store}, strings.NewReader(""), &shown, &errb); code != 0 || !strings.Contains(shown.String(), "answer: ") {
		t.Errorf("rate show: exit %d\n%s", code, shown.String())
	}
	png := filepath.Join(t.TempDir(), "r.png")
	if code := Main(context.Background(), []string{"rate", "show", "1", "--store", store, "--png", png}, strings.NewReader(""), &shown, &errb); code != 0 {
		t.Errorf("rate show --png: exit %d: %s", code, errb.String())
	} else if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("rate show --png wrote no PNG: %v", err)
	}
	shown.Reset()
	if code := Main(context.Background(), []string{"rate", "list", "--store", store}, strings.NewReader(""), &shown, &errb); code != 0 || !strings.Contains(shown.String(), "p95<20ms") {
		t.Errorf("rate list: exit %d\n%s", code, shown.String())
	}
}

// Without --rate, the rating's first step is the capacity probe: in the
// JSON (kind probe, the pool as its target), in the table (no verdict) and
// in the plot.
func TestRateProbe(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"rate", "--store", store, "--driver", "sim", "-p", "recordcount=200", "-p", "sim.capacity=500",
		"--sla", "p95<20ms", "--sla-duration", "2s", "--duration", "1s", "--clients", "8", "--precision", "20%", "--steadiness", "0", "--json", "--quiet"},
		strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Throughput *float64 `json:"throughput"`
		Steps      []struct {
			Kind             string
			Target, Achieved float64
			Pass             bool
		}
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
	}
	// The reference read burst comes first and last (--reference).
	if n := len(got.Steps); n < 5 || got.Steps[0].Kind != "reference" || got.Steps[n-1].Kind != "reference" {
		t.Fatalf("steps %+v: want the reference probe first and last", got.Steps)
	}
	got.Steps = got.Steps[1 : len(got.Steps)-1]
	// How close the probe and the answer come to the capacity is the
	// machine's here (beside a CPU burner the answer left 70–100 % of
	// it), and the queue model's in rating.TestProbeStartsTheSearchAtHalfTheCapacity;
	// here: neither is above it.
	if len(got.Steps) < 3 || got.Steps[0].Kind != "probe" || got.Steps[0].Target != 8 || got.Steps[0].Pass ||
		got.Steps[0].Achieved <= 0 || got.Steps[0].Achieved > 550 || got.Steps[1].Kind != "search" {
		t.Fatalf("steps %+v: want a probe of 8 clients measuring at most about 500 ops/s, then the search", got.Steps)
	}
	if got.Throughput == nil || *got.Throughput <= 0 || *got.Throughput > 500*1.2 {
		t.Errorf("answer %v, want one at most the capacity 500 and the precision (20 %%)", got.Throughput)
	}
	if !regexp.MustCompile(`(?m)^\s*2\s+probe\s+8 clients, closed\s+[\d,]+\s.*\s-\s`).MatchString(errb.String()) {
		t.Errorf("the table's second row (after the reference) is not the probe without a verdict:\n%s", errb.String())
	}
	png := filepath.Join(t.TempDir(), "r.png")
	if code := Main(context.Background(), []string{"rate", "show", "1", "--store", store, "--png", png}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Errorf("rate show --png: exit %d: %s", code, errb.String())
	}
}

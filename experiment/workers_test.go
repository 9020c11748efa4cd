package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/run"
)

func TestShares(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		n       int
		clients []int64
		rates   []float64
		ops     []int64
	}{
		{"closed, remainders to the first", Options{Driver: "null", Props: []string{"recordcount=10", "operationcount=11", "threadcount=7"}}, 3,
			[]int64{3, 2, 2}, nil, []int64{4, 4, 3}},
		{"open, integer rate", Options{Driver: "null", Props: []string{"recordcount=10", "operationcount=0", "maxexecutiontime=5", "threadcount=2", "target=1001"}}, 4,
			[]int64{1, 1, 1, 1}, []float64{251, 250, 250, 250}, nil},
		{"open, fractional rate", Options{Driver: "null", Props: []string{"recordcount=10", "operationcount=100", "threadcount=8", "target=10.5"}}, 2,
			[]int64{4, 4}, []float64{5.5, 5}, []int64{50, 50}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Resolve(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			shares, err := p.Shares(tt.n)
			if err != nil {
				t.Fatal(err)
			}
			next := int64(0)
			seeds := map[int64]bool{}
			for i, s := range shares {
				num := func(k string) int64 { v, _ := strconv.ParseInt(s.Props[k], 10, 64); return v }
				if got := num("threadcount"); got != tt.clients[i] {
					t.Errorf("share %d: %d clients, want %d", i, got, tt.clients[i])
				}
				if tt.rates != nil {
					if got, _ := strconv.ParseFloat(s.Props["target"], 64); got != tt.rates[i] {
						t.Errorf("share %d: rate %g, want %g", i, got, tt.rates[i])
					}
				}
				if tt.ops != nil && num("operationcount") != tt.ops[i] {
					t.Errorf("share %d: %s operations, want %d", i, s.Props["operationcount"], tt.ops[i])
				}
				// The load slices are disjoint and cover the records.
				start, _ := strconv.ParseInt(s.LoadProps["insertstart"], 10, 64)
				count, _ := strconv.ParseInt(s.LoadProps["insertcount"], 10, 64)
				if start != next || count < 1 {
					t.Errorf("share %d loads [%d, +%d), want from %d", i, start, count, next)
				}
				next = start + count
				seeds[s.Seed] = true
				if _, ok := s.Props["insertstart"]; ok {
					t.Errorf("share %d: the run phases are confined to its key slice", i)
				}
			}
			if next != 10 {
				t.Errorf("the load slices end at %d, want recordcount 10", next)
			}
			if len(seeds) != tt.n {
				t.Errorf("%d distinct seeds for %d shares", len(seeds), tt.n)
			}
			// A share resolves into a plan of its own.
			if _, err := resolveShare(shares[0], shares[0].LoadProps); err != nil {
				t.Errorf("resolve share 0: %v", err)
			}
		})
	}
}

func TestSharesBadInput(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		n    int
		want string
	}{
		{"more workers than records", Options{Driver: "null", Props: []string{"recordcount=3", "threadcount=8"}}, 4, "inserts 3 records"},
		{"more workers than closed clients", Options{Driver: "null", Props: []string{"recordcount=100", "threadcount=3"}}, 4, "3 clients"},
		{"rate share below 1/s", Options{Driver: "null", Props: []string{"recordcount=100", "target=3", "operationcount=0", "maxexecutiontime=1"}}, 4, "below 1 op/s"},
		{"fewer operations than workers", Options{Driver: "null", Props: []string{"recordcount=100", "threadcount=8", "operationcount=3"}}, 4, "operationcount is 3"},
		{"zero workers", Options{Driver: "null", Props: []string{"recordcount=100"}}, 0, "at least 1"},
		{"schedule share below 1/s", Options{Driver: "null", Props: []string{"recordcount=100"}, Schedule: []run.RateStep{{Rate: 100, For: time.Second}, {Rate: 2, For: time.Second}}}, 4, "below 1 op/s"},
		{"embedded store", Options{Driver: "sqlite", Props: []string{"recordcount=100", "threadcount=8"}}, 2, "one process's files"},
		{"inserts while running", Options{Driver: "null", PropFiles: []string{"workloadd"}, Props: []string{"recordcount=100", "threadcount=8"}}, 2, "insertproportion"},
		{"tpcc", Options{Driver: "null", PropFiles: []string{"tpcc"}, Props: []string{"threadcount=8"}}, 2, "TPC-C"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Resolve(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Shares(tt.n)
			if err == nil || !IsInput(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Shares(%d) = %v, want bad input saying %q", tt.n, err, tt.want)
			}
			var se *ShareError
			unsupported := strings.Contains(tt.name, "embedded") || strings.Contains(tt.name, "inserts") || tt.name == "tpcc"
			if unsupported != !errors.As(err, &se) {
				t.Errorf("Shares(%d) = %T, want *ShareError unless the driver is the problem", tt.n, err)
			}
		})
	}
}

func TestBenchWorkers(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "w.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := "system:\n  driver: null\nworkload:\n  files: [workloada]\ndataset:\n  records: 100\nload:\n  clients: 4\n  operations: 100\n"
	b, err := ResolveBench(write(base+"workers: 2\n"), BenchOptions{Store: filepath.Join(dir, "r.db")})
	if err != nil {
		t.Fatal(err)
	}
	if b.Runs[0].Exp.Workers != 2 {
		t.Fatalf("workers = %d, want 2", b.Runs[0].Exp.Workers)
	}
	// The run goes to the command's OnWorkers with the file's count.
	var got int
	_, err = b.Execute(context.Background(), Hooks{OnWorkers: func(_ context.Context, _ *Plan, n int, _ Hooks) (*Outcome, error) {
		got = n
		return &Outcome{Status: StatusDone}, nil
	}}, nil)
	if err != nil || got != 2 {
		t.Errorf("Execute gave OnWorkers %d workers (%v), want 2", got, err)
	}
	// Too many workers for the clients: bad input at the workers: key.
	_, err = ResolveBench(write(base+"workers: 5\n"), BenchOptions{})
	if err == nil || !IsInput(err) || !strings.Contains(err.Error(), "w.yaml:10:10") || !strings.Contains(err.Error(), "4 clients") {
		t.Errorf("workers: 5 with 4 clients = %v, want bad input at w.yaml:10:10", err)
	}
	_, err = ResolveBench(write(base+"workers: -1\n"), BenchOptions{})
	if err == nil || !strings.Contains(err.Error(), "w.yaml:10") {
		t.Errorf("workers: -1 = %v, want bad input at w.yaml:10", err)
	}
}

package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
)

// A duration asked for while a property file caps the count is said before
// the run (naming the file and the property) and after it, when the cap
// ended it; a count the user set, or a file's own pair, is not.
func TestCountCap(t *testing.T) {
	dir := t.TempDir()
	both := filepath.Join(dir, "both.properties")
	if err := os.WriteFile(both, []byte("workload=site.ycsb.workloads.CoreWorkload\nrecordcount=10\noperationcount=500\nmaxexecutiontime=60\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dur := Override{Flag: "--duration", Key: "maxexecutiontime", Value: "5"}
	tests := []struct {
		name  string
		opts  Options
		want  string // in the warning; "" = no cap
		count int64
	}{
		{"built-in file under --duration", Options{PropFiles: []string{"workloadc"}, Overrides: []Override{dur}},
			"workloadc (built-in):13 sets operationcount=1000: the run ends after 1,000 operations, possibly long before the 5s asked by flag --duration", 1000},
		{"-p operationcount=0", Options{PropFiles: []string{"workloadc"}, Props: []string{"operationcount=0"}, Overrides: []Override{dur}}, "", 0},
		{"-p operationcount=50", Options{PropFiles: []string{"workloadc"}, Props: []string{"operationcount=50"}, Overrides: []Override{dur}}, "", 0},
		{"no duration", Options{PropFiles: []string{"workloadc"}}, "", 0},
		{"quickstart", Options{Overrides: []Override{dur}}, "", 0},
		{"one file sets both", Options{PropFiles: []string{both}}, "", 0},
		{"a file's pair under --duration", Options{PropFiles: []string{both}, Overrides: []Override{dur}},
			"both.properties:3 sets operationcount=500", 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Driver = "null"
			p, err := Resolve(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			warned := strings.Join(p.Warnings, "\n")
			if tt.want == "" {
				if p.CountCap != nil || strings.Contains(warned, "operationcount") {
					t.Fatalf("cap %+v, warnings %q: want none", p.CountCap, warned)
				}
				return
			}
			if p.CountCap == nil || p.CountCap.Operations != tt.count || !strings.Contains(warned, tt.want) || !strings.Contains(warned, "-p operationcount=0") {
				t.Fatalf("cap %+v, warnings %q: want %q", p.CountCap, warned, tt.want)
			}
			// After the run: said when the cap ended it before the duration.
			t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			phase := func(n int64, d time.Duration) []measure.Summary {
				return []measure.Summary{{Phase: measure.PhaseMeasure, Start: t0, End: t0.Add(d), Overall: measure.OpSummary{Count: n}}}
			}
			if got := p.CountCap.Ended(phase(tt.count, 10*time.Millisecond)); !strings.Contains(got, "ended after operationcount=") {
				t.Errorf("ended by the count: %q", got)
			}
			if got := p.CountCap.Ended(phase(tt.count/2, 5*time.Second)); got != "" {
				t.Errorf("ended by the duration: %q, want none", got)
			}
		})
	}
}

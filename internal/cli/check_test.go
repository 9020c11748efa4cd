package cli

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/results"
)

// dbrig check on stored runs of the simulated store: a baseline, and a run
// whose every operation takes 25 % longer (a planted 20 % slowdown) fails
// the gate with exit code 4 and says so in every output;
// the other way round it passes. The runs are played in virtual time
// (virtualRun): run in real time, beside a CPU burner the sleeps of the
// base run stretched (p50 +70 %, throughput −55 % between two runs) and
// both rules regressed. The statistics' pass rate on runs of one
// configuration is tested on seeded samples in package gate.
func TestCheckSimRegression(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "results.db")
	ctx := context.Background()
	ids := map[string]string{
		"base": strconv.FormatInt(virtualRun(t, store, 2*time.Millisecond, 1, "base"), 10),
		"slow": strconv.FormatInt(virtualRun(t, store, 2500*time.Microsecond, 2, "slow"), 10),
	}
	for _, tag := range []string{"base", "slow"} {
		rows, err := openStore(t, store).ListRuns(ctx, results.Filter{Tag: tag})
		if err != nil || len(rows) != 1 || strconv.FormatInt(rows[0].ID, 10) != ids[tag] {
			t.Fatalf("runs of %s: %v, %v", tag, rows, err)
		}
	}

	junit, bmf := filepath.Join(dir, "check.xml"), filepath.Join(dir, "bmf.json")
	args := []string{"check", "tag:slow", "--baseline", ids["base"], "--store", store,
		"--fail-on", "READ.p50>+10%", "--fail-on", "throughput<-50%", "--junit", junit, "--bmf", bmf}
	code, out, errOut := dbrig(t, ctx, args...)
	if code != 4 || !strings.Contains(errOut, "regression: 1 of 2 rules failed") {
		t.Fatalf("slow run: exit %d, want 4\n%s%s", code, out, errOut)
	}
	// p50 shows the planted 25 %; throughput falls by a fifth, within its
	// rule.
	if f := fieldsOf(out, "READ.p50>+10%"); len(f) < 10 || f[9] != "REGRESSED:" || !strings.HasPrefix(f[4], "+2") {
		t.Errorf("p50 row %q\n%s", f, out)
	}
	if !strings.Contains(out, "check failed: 1 of 2 rules regressed") {
		t.Errorf("no verdict line:\n%s", out)
	}

	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if b, err := os.ReadFile(junit); err != nil || xml.Unmarshal(b, &suites) != nil || suites.Tests != 2 || suites.Failures != 1 {
		t.Errorf("JUnit %+v, %v:\n%s", suites, err, b)
	}
	var bench map[string]map[string]struct{ Value float64 }
	if b, err := os.ReadFile(bmf); err != nil || json.Unmarshal(b, &bench) != nil || len(bench) != 2 {
		t.Errorf("BMF %v:\n%s", err, b)
	}
	for name, ms := range bench {
		if ms["throughput"].Value < 100 || ms["latency-p50"].Value < 2e6 {
			t.Errorf("BMF %s: %+v, want ops/s and a p50 of at least 2 ms in ns", name, ms)
		}
	}

	// The other way round it is faster: the gate passes, as JSON too, and
	// rewrites its JUnit file without --force.
	code, out, errOut = dbrig(t, ctx, "check", ids["base"], "--baseline", "tag:slow", "--store", store, "--json", "--junit", junit,
		"--fail-on", "READ.p50>+10%", "--fail-on", "throughput<-50%")
	var doc struct {
		Passed  bool
		Results []struct{ Status string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || !doc.Passed || len(doc.Results) != 2 || doc.Results[0].Status != "improved" {
		t.Errorf("faster run: exit %d, %+v\n%s%s", code, doc, out, errOut)
	}
	// The BMF file is not recognisable as dbrig's: it is replaced only with --force.
	if code, _, errOut := dbrig(t, ctx, "check", ids["base"], "--baseline", "tag:slow", "--store", store, "--bmf", bmf); code != 2 || !strings.Contains(errOut, "--force") {
		t.Errorf("BMF over an existing file: exit %d\n%s", code, errOut)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--fail-on", "latency>10%"}, `unknown metric "latency": expected one of throughput, errors, mean, p50, p95, p99, max`},
		{[]string{"--fail-on", "SCAN.p99>10%"}, `no run has an operation "SCAN": expected one of OVERALL, READ`},
		{[]string{"--baseline", "last"}, `--baseline "last": expected a run id, tag:NAME or history:N`},
		{[]string{"--confidence", "200%"}, "expected a confidence level between 50% and 99.9%"},
	} {
		args := append([]string{"check", "tag:slow", "--store", store, "--baseline", "history:3"}, tt.args...)
		if code, _, errOut := dbrig(t, ctx, args...); code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", tt.args, code, tt.want, errOut)
		}
	}
	if code, _, errOut := dbrig(t, ctx, "check", "tag:slow", "--store", store); code != 2 || !strings.Contains(errOut, "expected --baseline") {
		t.Errorf("no baseline: exit %d\n%s", code, errOut)
	}
}

// fieldsOf is the whitespace-separated fields of the first line that
// starts (after indentation) with prefix; nil without one.
func fieldsOf(out, prefix string) []string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return strings.Fields(l)
		}
	}
	return nil
}

// A bad rule in an experiment file's check: block is bad input with the
// file's line and column, for dbrig check --file and for every command that
// reads the file, before anything runs.
func TestCheckFileBadRule(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ci.yaml")
	text := "system: {driver: sim}\nworkload: {files: [workloadc]}\nload: {duration: 1s}\ncheck:\n  fail_on: [\"READ.p98>+10%\"]\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	want := file + `:5:14: check.fail_on[0]: "READ.p98>+10%": unknown metric "p98": expected one of throughput, errors, mean, p50, p95, p99, max`
	for _, args := range [][]string{
		{"check", "1", "--file", file, "--baseline", "history:3", "--store", filepath.Join(dir, "none.db")},
		{"bench", file, "--dry-run"},
	} {
		if code, _, errOut := dbrig(t, context.Background(), args...); code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, want 2 and %q\n%s", args[0], code, want, errOut)
		}
	}
}

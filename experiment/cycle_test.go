package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCycleTargets: cycle_targets moves a member target each repetition of
// a bench (scenario.Cycle), and refuses what cannot cycle, with the file's
// position.
func TestCycleTargets(t *testing.T) {
	dir := t.TempDir()
	write := func(extra string) string {
		f := filepath.Join(dir, "c.yaml")
		os.WriteFile(f, []byte(`name: c
system: {driver: etcd, cluster: {recipe: etcd, nodes: 3}}
workload: {files: [workloada]}
load: {duration: 10s}
`+extra), 0o644)
		return f
	}
	b, err := ResolveBench(write(`repeat: 4
cycle_targets: true
scenario:
  - {fault: pause, target: etcd2, at: 1s, for: 1s}
  - {fault: kill, target: leader, at: 5s}
`), BenchOptions{Store: filepath.Join(dir, "r.db")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range b.Runs {
		got = append(got, r.Plan.Faults[0].Target+"/"+r.Plan.Faults[1].Target)
	}
	if want := "etcd2/leader etcd3/leader etcd1/leader etcd2/leader"; strings.Join(got, " ") != want {
		t.Errorf("targets by repetition %q, want %q", strings.Join(got, " "), want)
	}
	for _, bad := range []struct{ extra, msg string }{
		{"cycle_targets: true\nscenario:\n  - {fault: pause, target: etcd2, at: 1s, for: 1s}\n", "repeat: 2 or more"},
		{"repeat: 2\ncycle_targets: true\nscenario:\n  - {fault: kill, target: leader, at: 1s}\n", "no fault names a member"},
		{"repeat: 2\ncycle_targets: true\nscenario:\n  - {fault: kill, target: etcd7, at: 1s}\n", "has 3 members"},
	} {
		if _, err := ResolveBench(write(bad.extra), BenchOptions{Store: filepath.Join(dir, "r.db")}); err == nil || !strings.Contains(err.Error(), bad.msg) || !strings.Contains(err.Error(), "c.yaml:") {
			t.Errorf("%q: %v, want %q with a position", bad.extra, err, bad.msg)
		}
	}
}

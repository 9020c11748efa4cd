package experiment

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A fault target the cluster does not have is bad input before the run
// (it used to run, "done", with impact figures for a fault that never fired).
func TestUnknownFaultTarget(t *testing.T) {
	if _, err := exec.LookPath("etcd"); err != nil {
		t.Skip("SKIPPED: no etcd")
	}
	for _, tc := range []struct {
		fault string
		msg   string // "": accepted
	}{
		{"{fault: kill, target: etcd9, at: 1s}", "etcd9"},
		{"{fault: kill, target: bogus, at: 1s}", "bogus"},
		{"{fault: partition, target: all, groups: [[etcd1], [etcd7]], at: 1s, for: 1s}", "etcd7"},
		{"{fault: kill, target: etcd3, at: 1s}", ""},
		{"{fault: kill, target: leader, at: 1s}", ""},
		{"{fault: pause, target: all-member, at: 1s, for: 1s}", ""},
	} {
		path := filepath.Join(t.TempDir(), "exp.yaml")
		if err := os.WriteFile(path, []byte("name: x\nsystem:\n  driver: etcd\n  cluster: {recipe: etcd, nodes: 3}\ndataset: {records: 10}\n"+
			"workload: {files: [workloada]}\nload: {clients: 1, duration: 5s}\nscenario:\n  - "+tc.fault+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ResolveBench(path, BenchOptions{Store: filepath.Join(t.TempDir(), "r.db")})
		switch {
		case tc.msg == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.fault, err)
		case tc.msg != "" && (err == nil || !IsInput(err) || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "exp.yaml:9:")):
			t.Errorf("%s: %v, want bad input at exp.yaml:9 naming %s", tc.fault, err, tc.msg)
		}
	}
}

package experiment

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/results"
)

// TestNodeShare: three etcd members, the driver spreading its requests over
// them (one client proxy each); the scenario kills etcd2. Before the kill
// every member serves a fair part of the client traffic; after it etcd2
// serves none and the others take it over. The shares are read back from
// the stored run (node_traffic) as a later report would.
func TestNodeShare(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd cluster")
	}
	if _, err := exec.LookPath("etcd"); err != nil && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skip("SKIPPED: etcd not installed (apt-get install etcd-server)")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "share.yaml")
	os.WriteFile(f, []byte(`name: f9-share
seed: 5
system:
  driver: etcd
  cluster: {recipe: etcd, nodes: 3}
dataset: {records: 200}
workload: {files: [workloada]}
load: {model: open, rate: 200, clients: 8, duration: 8s, timeout: 1s}
scenario:
  - {name: kill-etcd2, fault: kill, target: etcd2, at: 3s}
`), 0o644)
	store := filepath.Join(dir, "r.db")
	b, err := ResolveBench(f, BenchOptions{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := Execute(ctx, b.Runs[0].Plan, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Impacts) != 1 {
		t.Fatalf("impacts %+v", out.Impacts)
	}
	im := out.Impacts[0]
	t.Logf("shares: %s", fmt.Sprint(im.Shares))
	if len(im.Shares) != 3 {
		t.Fatalf("shares %+v, want one per member", im.Shares)
	}
	for _, sh := range im.Shares {
		if sh.Baseline < 10 || sh.Baseline > 60 {
			t.Errorf("%s served %.0f%% before the kill: the driver does not spread over the members", sh.Node, sh.Baseline)
		}
		if sh.Node == "etcd2" && sh.After > 1 {
			t.Errorf("killed etcd2 served %.1f%% after the kill", sh.After)
		}
		if sh.Node != "etcd2" && sh.After < 30 {
			t.Errorf("%s served %.0f%% after the kill, want about half", sh.Node, sh.After)
		}
	}
	s, err := results.OpenExisting(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := analysis.ReadRuns(ctx, s, []int64{out.RunID})
	if err != nil {
		t.Fatal(err)
	}
	if again := analysis.RunImpacts(runs[0]); len(again) != 1 || fmt.Sprint(again[0].Shares) != fmt.Sprint(im.Shares) {
		t.Errorf("read back: %+v, want the shares the run computed", again)
	}
}

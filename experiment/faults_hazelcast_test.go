package experiment

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/results"
)

// TestHazelcastMemberKill: two Hazelcast members that dbrig starts (own
// cluster name, 128 MB heaps, started in parallel; three took 27-54 s to
// start on two loaded cores, two keep the test short), a YCSB run of reads,
// updates and inserts through the smart-routing driver; the scenario kills
// one member mid-run. Operations continue (the client drops the dead
// member's connection and its partitions' backups take over), every insert
// acknowledged before and during the run reads back afterwards (verify:
// true, none lost), and the kill's impact is computed and stored.
func TestHazelcastMemberKill(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 40 s")
	}
	if _, err := exec.LookPath("java"); err != nil && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skip("SKIPPED: java not installed (apt-get install openjdk-17-jre-headless)")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "hz.yaml")
	os.WriteFile(f, []byte(`name: f9-hazelcast-kill
seed: 9
system:
  driver: hazelcast
  cluster: {recipe: hazelcast, nodes: 2, config: {heap: 128m, cluster-name: f9-hz-kill}}
dataset: {records: 500}
workload: {files: [workloada], props: {hazelcast.prefix: f9hz., insertproportion: 0.2, readproportion: 0.5, updateproportion: 0.3}}
load: {model: open, rate: 100, clients: 8, duration: 12s, timeout: 2s}
verify: true
scenario:
  - {name: kill-member, fault: kill, target: hz2, at: 3s}
`), 0o644)
	b, err := ResolveBench(f, BenchOptions{Store: filepath.Join(dir, "r.db")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	var upAfter time.Duration
	out, err := Execute(ctx, b.Runs[0].Plan, Hooks{ClusterUp: func([]cluster.Node) { upAfter = time.Since(start) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2 members up in %v", upAfter.Round(100*time.Millisecond))
	if len(out.Impacts) != 1 || out.Impacts[0].Outcome != "injected" {
		t.Fatalf("impacts %+v, want the kill's, injected", out.Impacts)
	}
	im := out.Impacts[0]
	t.Logf("kill at %v: baseline %.0f ops/s; during %.0f ops/s, %d errors; after %.0f ops/s, %d errors; unavailable %d ms; recovery %v; p99 %d → %d → %d µs",
		im.Start, im.Baseline.Throughput, im.During.Throughput, im.During.Errors, im.After.Throughput, im.After.Errors,
		im.UnavailableMS, im.Recovery, im.Baseline.P99, im.During.P99, im.After.P99)
	if im.Shares != nil {
		t.Errorf("shares %+v: the smart client bypasses the proxies, no share is true", im.Shares)
	}
	if im.After.Throughput < 80 {
		t.Errorf("after the kill %.0f ops/s, want about the offered 100: operations did not continue", im.After.Throughput)
	}
	v := out.Verify
	if v == nil || v.InsertsAcked < 500 || v.Lost() != 0 {
		t.Errorf("verify %+v: want the 500 loaded records and the run's inserts read back, none lost", v)
	}
	s, err := results.OpenExisting(ctx, filepath.Join(dir, "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if stored, err := s.Impacts(ctx, out.RunID); err != nil || len(stored) != 1 || stored[0].Target != im.Detail {
		t.Errorf("stored impacts %+v, %v; want the kill's", stored, err)
	}
}

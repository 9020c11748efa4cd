package experiment

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver/redis"
)

// TestRedisSentinelFailover: a whole run through dbrig's own redis driver
// on a Redis primary + replica + 3 sentinels that dbrig starts, with
// Sentinel's down-after time shortened to 1 s; the scenario kills the
// primary mid-run. The driver was given the sentinels (the recipe's
// redis.sentinels), so it asks them for the primary and follows the
// failover: operations succeed again on the promoted replica before the
// run ends. The unavailable time (the longest stretch without a successful
// operation, from the per-operation timeline) is at least the down-after
// time and not much more.
func TestRedisSentinelFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 15 s")
	}
	if _, err := exec.LookPath("redis-server"); err != nil && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skip("SKIPPED: redis-server not installed (apt-get install redis-server)")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "sentinel.yaml")
	os.WriteFile(f, []byte(`name: f9-sentinel
seed: 9
system:
  driver: redis
  cluster: {recipe: redis, replicas: 1, sentinels: 3}
dataset: {records: 200}
workload: {files: [workloada], props: {table: f9sentinel, insertproportion: 0.5, readproportion: 0.5, updateproportion: 0, redis.timeout: 300ms}}
load: {model: open, rate: 200, clients: 8, duration: 9s, timeout: 400ms}
scenario:
  - {name: kill-primary, fault: kill, target: primary, at: 2s}
`), 0o644)
	b, err := ResolveBench(f, BenchOptions{Store: filepath.Join(dir, "r.db")})
	if err != nil {
		t.Fatal(err)
	}
	const downAfter = time.Second
	p := b.Runs[0].Plan
	r := p.Cluster.Recipe.(redis.Cluster)
	r.DownAfter = downAfter
	p.Cluster.Recipe = r
	var target string
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := Execute(ctx, p, Hooks{Started: func(s Started) { target = s.Target }})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(target, "redis-sentinel://") || !strings.Contains(target, "/mymaster/") {
		t.Errorf("target %q: the driver was not given the sentinels", target)
	}
	if len(out.Impacts) != 1 {
		t.Fatalf("impacts %+v, want the kill's", out.Impacts)
	}
	im := out.Impacts[0]
	t.Logf("kill at %v: unavailable %d ms (down-after %v), %d errors during, after: %.0f ops/s, %d errors, recovery %v",
		im.Start, im.UnavailableMS, downAfter, im.During.Errors, im.After.Throughput, im.After.Errors, im.Recovery)
	if im.Outcome != "injected" {
		t.Errorf("kill outcome %q", im.Outcome)
	}
	if im.UnavailableMS < downAfter.Milliseconds() || im.UnavailableMS > 6*downAfter.Milliseconds() {
		t.Errorf("unavailable %d ms, want at least the %v down-after and not much more (the failover's election and promotion)", im.UnavailableMS, downAfter)
	}
	// After the failover, operations succeed at the offered rate on the new
	// primary: the driver followed it.
	if im.After.Throughput < 150 {
		t.Errorf("after the failover %.0f ops/s, want the offered 200: the driver did not follow the new primary", im.After.Throughput)
	}
	for _, n := range out.Nodes {
		if n.Name == "redis-primary" && strings.Contains(target, n.Addr) {
			t.Errorf("target %q names the killed primary", target)
		}
	}
}

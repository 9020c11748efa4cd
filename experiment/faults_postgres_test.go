package experiment

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/run"
)

// lsnSample is the primary's WAL position and the replica's replay
// position, in bytes, at one moment.
type lsnSample struct {
	at               time.Time
	primary, replica int64
}

// TestPostgresReplicaPartition: a PostgreSQL primary and a streaming
// replica that dbrig starts, the replica's replication connection through
// a dbrig proxy (primary_conninfo names it); a write-heavy run on the
// primary while the scenario cuts the replica from its primary for 3 s.
// While cut, the replica's replay position stays behind the primary's (the
// lag grows); after the heal it reconnects and replays up to the
// primary's position at the heal: the catch-up time is measured from LSNs
// sampled every 50 ms on both servers.
func TestPostgresReplicaPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 15 s")
	}
	if _, err := exec.LookPath("pg_basebackup"); err != nil && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_basebackup"); len(m) == 0 {
			t.Skip("SKIPPED: PostgreSQL not installed (apt-get install postgresql)")
		}
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "pg.yaml")
	// wal_retrieve_retry_interval: how soon the replica retries its
	// primary after the connection broke (default 5 s).
	os.WriteFile(f, []byte(`name: f9-pg-partition
seed: 9
system:
  driver: postgres
  cluster: {recipe: postgres, replicas: 1, config: {wal_retrieve_retry_interval: 500ms, fsync: "off"}}
dataset: {records: 300}
workload: {files: [workloada], props: {insertproportion: 0.5, updateproportion: 0.5, readproportion: 0}}
load: {model: open, rate: 200, clients: 8, duration: 10s, timeout: 2s}
scenario:
  - {name: cut-replica, fault: partition, target: pg-replica1, at: 2s, for: 3s}
`), 0o644)
	b, err := ResolveBench(f, BenchOptions{Store: filepath.Join(dir, "r.db")})
	if err != nil {
		t.Fatal(err)
	}
	if l := b.Runs[0].Plan.Faults[0].Link; l != "peer" {
		t.Fatalf("a postgres partition's default link is %q, want peer", l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var samples []lsnSample
	sctx, stopSampling := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stopSampling(); wg.Wait() }()
	up := func(nodes []cluster.Node) {
		var purl, rurl string
		for _, n := range nodes {
			switch n.Role {
			case "primary":
				purl = n.URL
			case "replica":
				rurl = n.URL
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pc, err := pgx.Connect(sctx, purl)
			if err != nil {
				t.Errorf("sampler: %v", err)
				return
			}
			defer pc.Close(context.Background())
			rc, err := pgx.Connect(sctx, rurl) // direct, not through the proxy
			if err != nil {
				t.Errorf("sampler: %v", err)
				return
			}
			defer rc.Close(context.Background())
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				var s lsnSample
				s.at = time.Now()
				err1 := pc.QueryRow(sctx, "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint").Scan(&s.primary)
				err2 := rc.QueryRow(sctx, "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint").Scan(&s.replica)
				if err1 == nil && err2 == nil {
					mu.Lock()
					samples = append(samples, s)
					mu.Unlock()
				}
				select {
				case <-sctx.Done():
					return
				case <-tick.C:
				}
			}
		}()
	}
	out, err := Execute(ctx, b.Runs[0].Plan, Hooks{ClusterUp: up})
	if err != nil {
		t.Fatal(err)
	}
	// Sample a little longer: the catch-up may end after the run.
	time.Sleep(2 * time.Second)
	stopSampling()
	wg.Wait()
	var cut, heal run.Event
	for _, ev := range out.Faults {
		switch ev.Kind {
		case "fault_start":
			cut = ev
		case "fault_end":
			heal = ev
		}
	}
	if cut.Outcome != "injected" || heal.Outcome != "healed" {
		t.Fatalf("fault events %+v: want the partition injected and healed", out.Faults)
	}
	lagAtHeal, catchUp, ok := catchUpAfter(samples, cut.Time, heal.Time)
	t.Logf("partition %s: lag at the heal %d bytes of WAL; replay reached the primary's position at the heal %v after it (%d samples)",
		heal.Detail, lagAtHeal, catchUp, len(samples))
	if lagAtHeal <= 0 {
		t.Errorf("the replica was not behind at the heal (lag %d bytes): the partition did not cut replication", lagAtHeal)
	}
	if !ok {
		t.Fatalf("the replica never caught up after the heal")
	}
	if catchUp > 5*time.Second {
		t.Errorf("catch-up %v, want within a few retry intervals (500 ms)", catchUp)
	}
	// dbrig sampled the lag itself (node_gauges): the impact says how far
	// the replica fell behind and when it was back within its normal lag.
	if len(out.Impacts) != 1 || len(out.Impacts[0].Lags) != 1 {
		t.Fatalf("impacts %+v: want the partition's, with pg-replica1's lag", out.Impacts)
	}
	l := out.Impacts[0].Lags[0]
	t.Logf("dbrig's own samples: %s normal lag %.0f bytes, at most %.0f, back within normal %v after the heal", l.Node, l.Normal, l.Max, l.CaughtUp)
	if l.Node != "pg-replica1" || l.Max < float64(lagAtHeal)/2 || l.CaughtUp == nil || *l.CaughtUp > 5*time.Second {
		t.Errorf("lag %+v (caught up %v): want about %d bytes at most, caught up within seconds", l, l.CaughtUp, lagAtHeal)
	}
}

// catchUpAfter reads LSN samples: the replica's lag behind the primary at
// the heal (the last sample before it), and how long after the heal the
// replica's replay position first reached the primary's position at the
// heal.
func catchUpAfter(samples []lsnSample, cut, heal time.Time) (lag int64, catchUp time.Duration, ok bool) {
	var atHeal *lsnSample
	for i := range samples {
		if samples[i].at.After(heal) {
			break
		}
		if samples[i].at.After(cut) {
			atHeal = &samples[i]
		}
	}
	if atHeal == nil {
		return 0, 0, false
	}
	lag = atHeal.primary - atHeal.replica
	for _, s := range samples {
		if s.at.After(heal) && s.replica >= atHeal.primary {
			return lag, s.at.Sub(heal), true
		}
	}
	return lag, 0, false
}

package rating

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver/mysql"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/results"
)

// A rating of an experiment file's local cluster stands it up once for all
// experiments. MariaDB's driver has no snapshot of its own, so --reset
// snapshot copies the stopped nodes' data directories after the first
// experiment and puts them back before each later one. Workload D inserts
// from recordcount on in every experiment: without a real restore, the
// second experiment's inserts hit keys the first one inserted and fail
// (errors=0), and reads of the first one's keys are not what it reads.
func TestRateClusterWithImages(t *testing.T) {
	t.Parallel() // real time, but a loose SLA: load does not decide it
	if _, _, err := cluster.Plan(mysql.Cluster{}, nil); err != nil {
		var missing *cluster.BinaryMissingError
		if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
			t.Skipf("SKIPPED: %v", err)
		}
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	o := paced(Options{
		Base: experiment.Options{Driver: "mysql", Store: store, PropFiles: []string{"workloadd"},
			Props:   []string{"recordcount=1000", "dataintegrity=true"},
			Cluster: &experiment.ClusterPlan{Recipe: mysql.Cluster{}}},
		SLA: mustSLA(t, "p99<5s", "errors=0"), Reset: ResetSnapshot,
	}, 200)
	o.Max = 1 // one client and the final run: one image put back (a restart of 12–20 s on a loaded machine)
	r, err := Rate(context.Background(), o, Hooks{Warn: func(err error) { t.Log("warning:", err) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) < 2 {
		t.Fatalf("%d steps, want 1 client and the final run", len(r.Steps))
	}
	if r.Time.ClusterS <= 0 {
		t.Errorf("cluster_s %g, want the cluster's start time", r.Time.ClusterS)
	}
	s, err := results.Open(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pids := map[int]bool{}
	for i, st := range r.Steps {
		t.Logf("%s %g pass=%v reset %s %.2fs: %s", st.Kind, st.Target, st.Pass, st.Reset, st.ResetS, st.Reason)
		// errors=0 is what a missing restore breaks; the latency verdict
		// is the load's.
		for _, tm := range st.Terms {
			if tm.Term == "errors=0" && !tm.Pass {
				t.Errorf("step at %g: %v errors: %s", st.Target, tm.Measured, st.Reason)
			}
		}
		if i > 0 && st.Reset != ResetSnapshot {
			t.Errorf("step at %g: reset %q, want snapshot", st.Target, st.Reset)
		}
		nodes, err := s.Nodes(context.Background(), st.RunID)
		if err != nil || len(nodes) != 1 {
			t.Fatalf("run %d: nodes %v, %v; want the cluster's one node", st.RunID, nodes, err)
		}
		pids[nodes[0].PID] = true
	}
	// The image was taken after the first experiment (one restart) and
	// put back before each later one (one each).
	if len(pids) != len(r.Steps) {
		t.Errorf("%d steps ran on %d server processes, want a new one after each image", len(r.Steps), len(pids))
	}
	if r.Left != "restored the snapshot" {
		t.Errorf("left %q, want the snapshot restored at the end", r.Left)
	}
}

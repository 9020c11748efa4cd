package rating

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/driver/null"
	"github.com/dbrig/dbrig/experiment"
)

// memRecipe is a one-node cluster whose node keeps its data in memory
// (not Durable): no image of it can be taken. started counts the nodes
// whose setup ran: a cluster that starts runs it.
type memRecipe struct{ started *atomic.Int32 }

func (memRecipe) System() string { return "memstore" }

func (m memRecipe) Layout(l *cluster.Layout) ([]cluster.Stage, error) {
	return []cluster.Stage{{Name: "nodes", Nodes: []*cluster.NodeSpec{{
		Name: "mem1", Role: "node", Binary: "/bin/sleep", Args: []string{"60"}, DataDir: l.NodeDir("mem1"),
		Setup: func(context.Context, cluster.RunFunc) error { m.started.Add(1); return nil },
	}}}}, nil
}

func (memRecipe) Props([]cluster.Node) map[string]string { return nil }

// memDB is a DB with a reset and no snapshots of its own.
type memDB struct{ null.DB }

func (memDB) Reset(context.Context) error { return nil }

// --reset snapshot on a system whose driver has no snapshots and whose
// cluster keeps its data in memory is refused as bad input before the
// cluster starts (it was refused only once it ran), naming the flag and
// the strategies that work.
func TestSnapshotRefusedBeforeTheClusterStarts(t *testing.T) {
	var started atomic.Int32
	reg := all.Registry()
	reg["memstore"] = driver.Driver{Type: memDB{}, Open: func(context.Context, driver.Config) (driver.DB, error) {
		t.Error("the driver was opened")
		return memDB{}, nil
	}}
	_, err := Rate(context.Background(), Options{
		Base: experiment.Options{Driver: "memstore", Registry: reg, Store: filepath.Join(t.TempDir(), "r.db"),
			PropFiles: []string{"workloada"}, Props: []string{"recordcount=100"},
			Cluster: &experiment.ClusterPlan{Recipe: memRecipe{&started}}},
		SLA: mustSLA(t, "p99<5s"), Step: time.Second, SLADuration: time.Second,
		Start: 100, Max: 200, Reset: ResetSnapshot, Votes: 1, Warmup: -1, MinTail: -1,
	}, Hooks{})
	var in *experiment.InputError
	if !errors.As(err, &in) {
		t.Fatalf("err %v, want an input error", err)
	}
	for _, want := range []string{"--reset snapshot", "mem1 keeps its data in memory", "strategies that work here: reload, keep"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %q lacks %q", err, want)
		}
	}
	if n := started.Load(); n != 0 {
		t.Errorf("%d nodes started before the refusal", n)
	}
}

// In an experiment file, the refusal points at rate.reset: file, line and
// column, before the cluster starts.
func TestFileSnapshotRefusedAtItsLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hz.yaml")
	text := "name: hz\nsystem:\n  driver: hazelcast\n  cluster: {recipe: hazelcast, nodes: 1}\nworkload:\n  files: [workloada]\n" +
		"sla: [\"p95<10ms\"]\nrate:\n  reset: snapshot\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := experiment.ResolveBench(path, experiment.BenchOptions{Store: filepath.Join(t.TempDir(), "r.db")})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	_, err = FromFile(b, FileDefaults())
	var in *experiment.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "hz.yaml:9:") || !strings.Contains(err.Error(), "rate.reset") ||
		!strings.Contains(err.Error(), "hz1 keeps its data in memory") {
		t.Errorf("err %v, want an input error at hz.yaml:9 naming rate.reset and why", err)
	}
}

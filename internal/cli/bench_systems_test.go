package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/results"
)

// The cross-system example runs end to end, shortened: one experiment file,
// Redis and etcd each on a cluster of its own that dbrig stands up and tears
// down, and a comparison of the two at the end (table and JSON).
func TestRedisVsEtcdExample(t *testing.T) {
	needBinary(t, "redis-server")
	needBinary(t, "etcd")
	store := filepath.Join(t.TempDir(), "r.db")
	code, out, errOut := dbrig(t, context.Background(), "bench", filepath.Join("..", "..", "examples", "redis-vs-etcd.yaml"),
		"--store", store, "--quiet", "--json", "--set", "duration=2s", "--set", "warmup=0s", "--set", "records=1000", "--set", "repeat=1")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	s := openStore(t, store)
	runs, err := s.ListRuns(context.Background(), results.Filter{})
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v, %v; want 2", runs, err)
	}
	systems := map[string]int64{}
	for _, r := range runs {
		if r.Status != "done" || r.Count == 0 {
			t.Errorf("run %d (%s): %s with %d operations", r.ID, r.System, r.Status, r.Count)
		}
		systems[r.System] = r.ID
		nodes, err := s.Nodes(context.Background(), r.ID)
		if err != nil || len(nodes) == 0 {
			t.Errorf("run %d: nodes %v, %v; want its own cluster", r.ID, nodes, err)
		}
		for _, n := range nodes {
			if alive(n.PID) {
				t.Errorf("node %s (pid %d) of run %d still runs after the bench", n.Name, n.PID, r.ID)
			}
		}
	}
	if systems["redis"] == 0 || systems["etcd"] == 0 {
		t.Fatalf("systems %v, want a run of redis and one of etcd", systems)
	}
	// The table (stderr with --json): one row per system, etcd against redis.
	var table []string
	for _, l := range strings.Split(errOut, "\n") {
		if f := strings.Fields(l); len(f) > 2 && strings.HasPrefix(f[0], "system=") && f[2] == "OVERALL" {
			table = append(table, f[0])
		}
	}
	if !strings.Contains(errOut, "\ncomparison\n") || strings.Join(table, " ") != "system=redis system=etcd" {
		t.Errorf("comparison rows %v, want system=redis system=etcd:\n%s", table, errOut)
	}
	var doc struct {
		Comparison []struct {
			Group string  `json:"group"`
			Runs  []int64 `json:"runs"`
			Ops   []struct {
				Op         string             `json:"op"`
				Throughput map[string]float64 `json:"throughput"`
			} `json:"ops"`
		} `json:"comparison"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("bench --json: %v\n%s", err, out)
	}
	if len(doc.Comparison) != 2 {
		t.Fatalf("comparison %+v, want redis and etcd", doc.Comparison)
	}
	for i, sys := range []string{"redis", "etcd"} {
		c := doc.Comparison[i]
		if c.Group != "system="+sys || len(c.Runs) != 1 || c.Runs[0] != systems[sys] || len(c.Ops) < 2 || c.Ops[0].Throughput["median"] <= 0 {
			t.Errorf("comparison[%d] = %+v, want system=%s of run %d with its throughput", i, c, sys, systems[sys])
		}
	}
}

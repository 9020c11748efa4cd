package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run that loses acknowledged writes exits 3: a Redis without persistence
// that dbrig starts, a scenario that kills and restarts it mid-run (it
// comes back empty), verify: true. The same run without the restart loses
// nothing and exits 0, so the exit code is the lost writes' doing.
func TestBenchLostWritesExit3(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Redis twice")
	}
	needBinary(t, "redis-server")
	dir := t.TempDir()
	file := func(name, scenario string) string {
		f := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yaml")
		text := `name: f9-lost-writes
seed: 3
system:
  driver: redis
  cluster: {recipe: redis}
dataset: {records: 200}
workload: {files: [workloada], props: {insertproportion: 0.5, readproportion: 0.5, updateproportion: 0}}
load: {model: open, rate: 100, clients: 4, duration: 3s, timeout: 1s}
verify: true
` + scenario
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	t.Run("calm", func(t *testing.T) {
		store := filepath.Join(t.TempDir(), "r.db")
		code, out, errOut := dbrig(t, context.Background(), "bench", file("calm", ""), "--store", store, "--quiet")
		if code != 0 || !strings.Contains(out+errOut, "lost writes (verify): none lost") {
			t.Fatalf("exit %d (want 0), output without \"none lost\":\n%s%s", code, out, errOut)
		}
		t.Logf("exit %d: %s", code, lineWith(out+errOut, "lost writes"))
	})
	// The kill and restart: exit 3, the lost writes and the impact in
	// --json, with the one node's share of the client traffic.
	t.Run("restart without persistence", func(t *testing.T) {
		store := filepath.Join(t.TempDir(), "r.db")
		code, out, errOut := dbrig(t, context.Background(), "bench",
			file("wipe", "scenario:\n  - {name: wipe, fault: restart, mode: kill, target: redis-primary, at: 1s, for: 300ms}\n"),
			"--store", store, "--quiet", "--json")
		var doc struct {
			Runs []struct {
				LostWrites *struct {
					InsertsAcked int64 `json:"inserts_acked"`
					LostInserts  int64 `json:"lost_inserts"`
				} `json:"lost_writes"`
			} `json:"runs"`
			Impacts []struct {
				Fault     string `json:"fault"`
				NodeShare []struct {
					Node     string  `json:"node"`
					Baseline float64 `json:"baseline_pct"`
				} `json:"node_share"`
			} `json:"impacts"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("exit %d, JSON: %v\n%s%s", code, err, out, errOut)
		}
		if code != 3 || len(doc.Runs) != 1 || doc.Runs[0].LostWrites == nil || doc.Runs[0].LostWrites.LostInserts == 0 {
			t.Fatalf("exit %d (want 3), runs %+v\n%s", code, doc.Runs, errOut)
		}
		lw := doc.Runs[0].LostWrites
		t.Logf("exit %d: %d of %d acknowledged inserts lost", code, lw.LostInserts, lw.InsertsAcked)
		if len(doc.Impacts) != 1 || len(doc.Impacts[0].NodeShare) != 1 || doc.Impacts[0].NodeShare[0].Node != "redis-primary" || doc.Impacts[0].NodeShare[0].Baseline != 100 {
			t.Errorf("impacts %+v: want the wipe's, redis-primary serving all the client traffic before it", doc.Impacts)
		}
	})
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

package cli

import (
	"context"
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
	for _, tc := range []struct {
		name, scenario string
		code           int
		says           string
	}{
		{"calm", "", 0, "lost writes (verify): none lost"},
		{"restart without persistence", "scenario:\n  - {name: wipe, fault: restart, mode: kill, target: redis-primary, at: 1s, for: 300ms}\n", 3, "LOST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "r.db")
			code, out, errOut := dbrig(t, context.Background(), "bench", file(tc.name, tc.scenario), "--store", store, "--quiet")
			if code != tc.code || !strings.Contains(out+errOut, tc.says) {
				t.Fatalf("exit %d (want %d), output without %q:\n%s%s", code, tc.code, tc.says, out, errOut)
			}
			t.Logf("exit %d: %s", code, lineWith(out+errOut, "lost writes"))
		})
	}
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

package experiment

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/results"
)

// TestReplay: a run on a one-member etcd with a delay on its client link
// and a pause stores its exact plan; --replay resolves the same file with
// that plan and seed, and the replayed run stores the same plan; it reads
// its writes back (verify: true) with none lost.
func TestReplay(t *testing.T) {
	if _, err := exec.LookPath("etcd"); err != nil && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skip("SKIPPED: etcd not installed (apt-get install etcd-server)")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "r.yaml")
	os.WriteFile(f, []byte(`name: replay
seed: 42
system:
  driver: etcd
  cluster: {recipe: etcd, nodes: 1}
dataset: {records: 50}
workload: {files: [workloada], props: {insertproportion: 0.2, readproportion: 0.4, updateproportion: 0.4}}
load: {model: open, rate: 50, clients: 4, duration: 3s, timeout: 2s}
verify: true
scenario:
  - {name: slow, fault: delay, target: etcd1, delay: 20ms, jitter: 5ms, at: 500ms, for: 1s}
  - {name: nap, fault: pause, target: etcd1, after: slow, wait: 200ms, for: 300ms}
  - {name: mark, fault: command, target: etcd1, run: "test -n \"$DBRIG_PIDS\" && echo SECRETCMD >/dev/null", at: 2500ms}
`), 0o644)
	store := filepath.Join(dir, "r.db")
	ctx := context.Background()
	b, err := ResolveBench(f, BenchOptions{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := b.Execute(ctx, Hooks{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := outs[0].Outcome
	if first.Verify == nil || first.Verify.Lost() != 0 || first.Verify.InsertsAcked < 50 {
		t.Errorf("verify: %+v, want the 50 loaded records and the run's inserts acknowledged, none lost", first.Verify)
	}
	if len(first.Faults) != 5 {
		t.Errorf("fault events %+v, want start and end of 2 faults and the command", first.Faults)
	}
	for _, ev := range first.Faults {
		if strings.HasPrefix(ev.Outcome, "failed") {
			t.Errorf("fault %s: %s", ev.Name, ev.Outcome)
		}
	}
	s, err := results.OpenExisting(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plan, err := s.FaultPlan(ctx, first.RunID)
	if err != nil || len(plan) != 3 || plan[0].DelayUS != 20000 || plan[1].AtMS != 1700 || !strings.HasPrefix(plan[2].Run, "sha256:") {
		t.Fatalf("stored plan %+v, %v", plan, err)
	}
	if _, err := s.Verification(ctx, first.RunID); err != nil {
		t.Errorf("verification not stored: %v", err)
	}

	// The file changes afterwards (seed and scenario): a replay runs what
	// was stored, not what the file says now.
	text, _ := os.ReadFile(f)
	changed := strings.Replace(strings.Replace(string(text), "delay: 20ms", "delay: 80ms", 1), "seed: 42", "seed: 7", 1)
	os.WriteFile(f, []byte(changed), 0o644)
	rb, err := ReplayBench(ctx, "", first.RunID, BenchOptions{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	// A command that changed in the file is refused: it is not what ran.
	os.WriteFile(f, []byte(strings.Replace(changed, "SECRETCMD", "OTHER", 1)), 0o644)
	if _, err := ReplayBench(ctx, "", first.RunID, BenchOptions{Store: store}); err == nil || !strings.Contains(err.Error(), "commands the run ran") {
		t.Errorf("replay with a changed command: %v", err)
	}
	if got := rb.Runs[0].Plan.Config.Seed; got != 42 {
		t.Errorf("replay seed %d, want 42", got)
	}
	outs, err = rb.Execute(ctx, Hooks{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.FaultPlan(ctx, outs[0].Outcome.RunID)
	if err != nil || !reflect.DeepEqual(again, plan) {
		t.Errorf("replayed plan %+v, %v\nwant %+v", again, err, plan)
	}
	// A run without faults has nothing to replay.
	if _, err := ReplayBench(ctx, f, 999, BenchOptions{Store: store}); err == nil || !IsInput(err) {
		t.Errorf("replay of an unknown run: %v", err)
	}
	var noPlan error
	plain := filepath.Join(dir, "plain.yaml")
	os.WriteFile(plain, []byte("name: plain\nsystem: {driver: sim}\ndataset: {records: 10}\nworkload: {files: [workloadc]}\nload: {operations: 10}\n"), 0o644)
	pb, _ := ResolveBench(plain, BenchOptions{Store: store})
	pouts, _ := pb.Execute(ctx, Hooks{}, nil)
	if _, noPlan = ReplayBench(ctx, plain, pouts[0].Outcome.RunID, BenchOptions{Store: store}); !errors.Is(noPlan, ErrNoPlan) {
		t.Errorf("replay of a run without faults: %v, want ErrNoPlan", noPlan)
	}
}

package inject

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func sleeper(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() { cmd.Wait(); close(reaped) }() // reap, so a killed one does not linger as a zombie
	t.Cleanup(func() { cmd.Process.Kill(); <-reaped })
	return cmd.Process.Pid
}

func TestFaultsOnRealProcesses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	p := sleeper(t)
	if err := (Pause{}).Inject(ctx, Target{PIDs: []int{p}}); err != nil || state(p) != "T" {
		t.Fatalf("pause: %v, state %q", err, state(p))
	}
	if err := (Pause{}).Heal(ctx, Target{PIDs: []int{p}}); err != nil || state(p) == "T" || gone(p) {
		t.Fatalf("resume: %v, state %q", err, state(p))
	}

	k := sleeper(t)
	if err := (Kill{}).Inject(ctx, Target{PIDs: []int{k}}); err != nil || !gone(k) {
		t.Fatalf("kill: %v, gone %v", err, gone(k))
	}
	if err := (Kill{}).Heal(ctx, Target{PIDs: []int{k}}); !errors.Is(err, ErrNoHeal) {
		t.Errorf("heal after kill: %v, want ErrNoHeal", err)
	}

	s := sleeper(t) // sleep ends on SIGTERM
	if err := (Stop{Grace: 5 * time.Second}).Inject(ctx, Target{PIDs: []int{s}}); err != nil || !gone(s) {
		t.Fatalf("stop: %v, gone %v", err, gone(s))
	}
	// A process that ignores SIGTERM is killed after the grace period.
	stubborn := exec.Command("sh", "-c", "trap '' TERM; sleep 30 & wait")
	if err := stubborn.Start(); err != nil {
		t.Fatal(err)
	}
	go stubborn.Wait()
	time.Sleep(100 * time.Millisecond)
	began := time.Now()
	if err := (Stop{Grace: 300 * time.Millisecond}).Inject(ctx, Target{PIDs: []int{stubborn.Process.Pid}}); err != nil || !gone(stubborn.Process.Pid) {
		t.Fatalf("stop of a process ignoring SIGTERM: %v", err)
	}
	if time.Since(began) < 300*time.Millisecond {
		t.Error("killed before the grace period ended")
	}

}

func TestCommandAndRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dir := t.TempDir()
	c, err := NewCommand(`echo "$DBRIG_PIDS" > `+dir+`/pids`, "rm "+dir+"/pids")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Inject(ctx, Target{PIDs: []int{12, 34}}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(dir + "/pids"); err != nil || string(b) != "12 34\n" {
		t.Fatalf("command saw %q, %v", b, err)
	}
	if err := c.Heal(ctx, Target{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir + "/pids"); !os.IsNotExist(err) {
		t.Fatalf("heal command did not run: %v", err)
	}
	bad, _ := NewCommand("echo oops; exit 3", "")
	if err := bad.Inject(ctx, Target{}); err == nil || !strings.Contains(err.Error(), "oops") {
		t.Errorf("failing command: %v, want its output", err)
	}
	slow, _ := NewCommand("sleep 30", "")
	sctx, scancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer scancel()
	if err := slow.Inject(sctx, Target{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("command outliving ctx: %v", err)
	}
	if _, err := NewCommand(" ", ""); !errors.Is(err, ErrBadOption) {
		t.Errorf("command without run: %v", err)
	}

	r, err := NewRestart("kill", 0)
	if err != nil {
		t.Fatal(err)
	}
	p := sleeper(t)
	if err := r.Inject(ctx, Target{PIDs: []int{p}}); err != nil || !gone(p) {
		t.Fatalf("restart (kill): %v, gone %v", err, gone(p))
	}
	if err := r.Heal(ctx, Target{PIDs: []int{p}}); !errors.Is(err, ErrNoHeal) {
		t.Errorf("restart heal: %v, want ErrNoHeal (the injector starts the node)", err)
	}
	if _, err := NewRestart("gently", 0); !errors.Is(err, ErrBadOption) {
		t.Errorf("restart mode gently: %v", err)
	}
}

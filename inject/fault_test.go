package inject

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"
)

func sleeper(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	go cmd.Wait() // reap, so a killed one does not linger as a zombie
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

	if _, err := New("meteor", Options{}); !errors.Is(err, ErrUnknownFault) {
		t.Errorf("New(meteor): %v", err)
	}
}

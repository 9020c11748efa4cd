package inject

import (
	"context"
	"fmt"
	"syscall"
)

// Pause freezes the node (SIGSTOP): it holds its connections and its role
// but answers nothing, like a long garbage-collection pause or a stalled
// disk. Heal resumes it (SIGCONT) and checks that it runs again.
type Pause struct{}

// Name implements Fault.
func (Pause) Name() string { return "pause" }

// Inject implements Fault; it returns once every process is stopped.
func (Pause) Inject(ctx context.Context, t Target) error {
	pids := t.PIDs
	if err := signal(pids, syscall.SIGSTOP); err != nil {
		return err
	}
	return waitFor(ctx, func() bool {
		for _, pid := range pids {
			if st := state(pid); st != "T" && st != "t" && !gone(pid) {
				return false
			}
		}
		return true
	})
}

// Heal implements Fault.
func (Pause) Heal(ctx context.Context, t Target) error {
	pids := t.PIDs
	if err := signal(pids, syscall.SIGCONT); err != nil {
		return err
	}
	if err := waitFor(ctx, func() bool {
		for _, pid := range pids {
			if st := state(pid); st == "T" || st == "t" {
				return false
			}
		}
		return true
	}); err != nil {
		return fmt.Errorf("processes %v did not resume: %w", pids, err)
	}
	return nil
}

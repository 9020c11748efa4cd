package inject

import (
	"context"
	"fmt"
	"syscall"
)

// Kill sends SIGKILL: the node dies at once, without flushing or saying
// goodbye to its peers. Inject returns when the processes are gone.
type Kill struct{}

// Name implements Fault.
func (Kill) Name() string { return "kill" }

// Inject implements Fault.
func (Kill) Inject(ctx context.Context, t Target) error {
	pids := t.PIDs
	if err := signal(pids, syscall.SIGKILL); err != nil {
		return err
	}
	return waitGone(ctx, pids)
}

// Heal implements Fault: a killed node stays down.
func (Kill) Heal(context.Context, Target) error { return ErrNoHeal }

func waitGone(ctx context.Context, pids []int) error {
	if err := waitFor(ctx, func() bool {
		for _, pid := range pids {
			if !gone(pid) {
				return false
			}
		}
		return true
	}); err != nil {
		return fmt.Errorf("processes %v still run: %w", pids, err)
	}
	return nil
}

package inject

import (
	"context"
	"syscall"
	"time"
)

// Stop asks the node to shut down (SIGTERM), as an operator would, and
// kills it when it has not stopped within Grace.
type Stop struct {
	Grace time.Duration // default 10s
}

// Name implements Fault.
func (Stop) Name() string { return "stop" }

// Inject implements Fault.
func (s Stop) Inject(ctx context.Context, t Target) error {
	pids := t.PIDs
	if err := signal(pids, syscall.SIGTERM); err != nil {
		return err
	}
	grace := s.Grace
	if grace <= 0 {
		grace = 10 * time.Second
	}
	gctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	if waitGone(gctx, pids) == nil {
		return nil
	}
	return Kill{}.Inject(ctx, t)
}

// Heal implements Fault: a stopped node stays down.
func (Stop) Heal(context.Context, Target) error { return ErrNoHeal }

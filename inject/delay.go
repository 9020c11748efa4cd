package inject

import (
	"context"
	"fmt"
	"time"

	"github.com/dbrig/dbrig/inject/proxy"
)

// Delay adds latency (± jitter) to the target's links, like netem on one
// side of a link: a request/response round trip gets Delay ± Jitter slower
// (half of it each way). Other toxics on the links stay.
type Delay struct {
	Delay, Jitter time.Duration
}

// NewDelay is a delay of delay ± jitter, checked.
func NewDelay(delay, jitter time.Duration) (Delay, error) {
	if delay <= 0 || jitter < 0 || jitter > delay {
		return Delay{}, fmt.Errorf("%w: delay needs delay > 0 and 0 <= jitter <= delay (got %v ± %v)", ErrBadOption, delay, jitter)
	}
	return Delay{Delay: delay, Jitter: jitter}, nil
}

// Name implements Fault.
func (Delay) Name() string { return "delay" }

// Inject implements Fault.
func (d Delay) Inject(_ context.Context, t Target) error {
	return setLinks(t, func(x *proxy.Toxics) { x.Delay, x.Jitter = d.Delay/2, d.Jitter/2 })
}

// Heal implements Fault.
func (Delay) Heal(_ context.Context, t Target) error {
	if err := setLinks(t, func(x *proxy.Toxics) { x.Delay, x.Jitter = 0, 0 }); err != nil {
		return err
	}
	return checkLinks(t, "a delay", func(x proxy.Toxics) bool { return x.Delay == 0 && x.Jitter == 0 })
}

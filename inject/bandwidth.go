package inject

import (
	"context"
	"fmt"

	"github.com/dbrig/dbrig/inject/proxy"
)

// Bandwidth limits each direction of each connection over the target's
// links to Rate bytes per second.
type Bandwidth struct {
	Rate int64
}

// NewBandwidth is a limit of rate bytes per second, checked.
func NewBandwidth(rate int64) (Bandwidth, error) {
	if rate <= 0 {
		return Bandwidth{}, fmt.Errorf("%w: bandwidth needs rate > 0 (bytes per second, e.g. 100KB)", ErrBadOption)
	}
	return Bandwidth{Rate: rate}, nil
}

// Name implements Fault.
func (Bandwidth) Name() string { return "bandwidth" }

// Inject implements Fault.
func (b Bandwidth) Inject(_ context.Context, t Target) error {
	return setLinks(t, func(x *proxy.Toxics) { x.Rate = b.Rate })
}

// Heal implements Fault.
func (Bandwidth) Heal(_ context.Context, t Target) error {
	if err := setLinks(t, func(x *proxy.Toxics) { x.Rate = 0 }); err != nil {
		return err
	}
	return checkLinks(t, "a rate limit", func(x proxy.Toxics) bool { return x.Rate == 0 })
}

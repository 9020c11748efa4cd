package inject

import (
	"context"
	"fmt"

	"github.com/dbrig/dbrig/inject/proxy"
)

// Drop drops the connections over the target's links: reset (open ones
// and new ones get an RST at once: the client knows) or, with Blackhole,
// kept open while every byte is swallowed (the client waits for its own
// timeout, like a host that vanished without a word).
type Drop struct {
	Blackhole bool
}

// NewDrop is a drop of a mode: reset (or "") or blackhole.
func NewDrop(mode string) (Drop, error) {
	switch mode {
	case "", "reset":
		return Drop{}, nil
	case "blackhole":
		return Drop{Blackhole: true}, nil
	}
	return Drop{}, fmt.Errorf("%w: drop mode %q (expected reset or blackhole)", ErrBadOption, mode)
}

// Name implements Fault.
func (Drop) Name() string { return "drop" }

func (d Drop) mode() proxy.Drop {
	if d.Blackhole {
		return proxy.DropBlackhole
	}
	return proxy.DropReset
}

// Inject implements Fault.
func (d Drop) Inject(_ context.Context, t Target) error {
	return setLinks(t, func(x *proxy.Toxics) { x.Drop = d.mode() })
}

// Heal implements Fault.
func (Drop) Heal(_ context.Context, t Target) error {
	if err := setLinks(t, func(x *proxy.Toxics) { x.Drop = proxy.DropNone }); err != nil {
		return err
	}
	return checkLinks(t, "dropped connections", func(x proxy.Toxics) bool { return x.Drop == proxy.DropNone })
}

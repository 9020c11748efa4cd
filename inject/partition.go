package inject

import (
	"context"
	"errors"
	"fmt"

	"github.com/dbrig/dbrig/inject/proxy"
)

// Partition cuts the target's links: a link that stands for every
// connection through its proxy (a node's client link, or its own inbound
// peer link) is cut (open connections closed, new ones refused); a link
// from one source (a peer) is reset for that source only. Which links a
// partition takes — a node from its peers, from its clients, or the
// cluster split into named groups — is the scenario's choice.
type Partition struct{}

// Name implements Fault.
func (Partition) Name() string { return "partition" }

// Inject implements Fault.
func (Partition) Inject(_ context.Context, t Target) error {
	if len(t.Links) == 0 {
		return ErrNoLinks
	}
	for _, l := range t.Links {
		if l.From == "" {
			l.Proxy.Cut()
			continue
		}
		x := l.Proxy.Toxics(l.From)
		x.Drop = proxy.DropReset
		l.Proxy.Set(l.From, x)
	}
	return nil
}

// Heal implements Fault: every link forwards again.
func (Partition) Heal(_ context.Context, t Target) error {
	var errs []error
	for _, l := range t.Links {
		if l.From == "" {
			if err := l.Proxy.Restore(); err != nil {
				errs = append(errs, fmt.Errorf("link %s: %w", l.Name, err))
			}
			continue
		}
		x := l.Proxy.Toxics(l.From)
		x.Drop = proxy.DropNone
		l.Proxy.Set(l.From, x)
		if l.Proxy.Toxics(l.From).Drop != proxy.DropNone {
			errs = append(errs, fmt.Errorf("link %s is still cut", l.Name))
		}
	}
	return errors.Join(errs...)
}

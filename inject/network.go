package inject

import (
	"errors"
	"fmt"

	"github.com/dbrig/dbrig/inject/proxy"
)

// ErrNoLinks is returned by a network fault given no links: the target's
// traffic does not go through dbrig's proxies.
var ErrNoLinks = errors.New("no network links to act on (the cluster's traffic does not go through dbrig's proxies)")

// setLinks changes each link's toxics with f; a link with From "" applies
// to every connection through its proxy.
func setLinks(t Target, f func(*proxy.Toxics)) error {
	if len(t.Links) == 0 {
		return ErrNoLinks
	}
	for _, l := range t.Links {
		x := l.Proxy.Toxics(l.From)
		f(&x)
		l.Proxy.Set(l.From, x)
	}
	return nil
}

// checkLinks verifies that each link's toxics satisfy ok (a heal that is
// checked, not assumed).
func checkLinks(t Target, what string, ok func(proxy.Toxics) bool) error {
	var errs []error
	for _, l := range t.Links {
		if !ok(l.Proxy.Toxics(l.From)) {
			errs = append(errs, fmt.Errorf("link %s still has %s", l.Name, what))
		}
	}
	return errors.Join(errs...)
}

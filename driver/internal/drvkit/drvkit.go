// Package drvkit holds the small pieces the client-server key-value drivers
// (etcd, hazelcast) share: reading their connection properties and
// classifying a client's timeout while it has no connection.
package drvkit

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// Positive reads a duration property that must be > 0 (a timeout of 0 would
// fail every operation at once).
func Positive(p *spec.Props, key string, def time.Duration) (time.Duration, error) {
	d, err := p.Duration(key, def)
	if err == nil && d <= 0 {
		err = p.Errorf(key, "a duration > 0")
	}
	return d, err
}

// HostPorts reads a comma-separated list of host:port; empty items are
// skipped, and an empty list is an error naming the property.
func HostPorts(p *spec.Props, key, def string) ([]string, error) {
	return hostPorts(p, key, def, false)
}

// Endpoints is HostPorts where an item may also carry a scheme, as in
// http://127.0.0.1:2379; the items are returned as given.
func Endpoints(p *spec.Props, key, def string) ([]string, error) {
	return hostPorts(p, key, def, true)
}

func hostPorts(p *spec.Props, key, def string, schemes bool) ([]string, error) {
	var out []string
	for _, s := range strings.Split(p.String(key, def), ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		hostport := s
		if _, rest, ok := strings.Cut(s, "://"); ok && schemes {
			hostport = rest
		}
		if _, _, err := net.SplitHostPort(hostport); err != nil {
			return nil, p.Errorf(key, "a comma-separated list of host:port (%v)", fmt.Errorf("%q: %w", s, err))
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, p.Errorf(key, "a comma-separated list of host:port (%v)", errors.New("none given"))
	}
	return out, nil
}

// Classify attaches the class classOf gives to err. Clients that wait for a
// usable connection until the operation's deadline report an unreachable
// cluster as a timeout; when connected then reports false the cause was
// reachability, so the error is classed unavailable and offline says why.
func Classify(err error, classOf func(error) errclass.Class, connected func() bool, offline string) error {
	if err == nil {
		return nil
	}
	c := classOf(err)
	if c == errclass.Timeout && !connected() {
		return errclass.Wrap(errclass.Unavailable, fmt.Errorf("%w (%s)", err, offline))
	}
	return errclass.Wrap(c, err)
}

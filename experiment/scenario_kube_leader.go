package experiment

import (
	"context"

	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/inject/kube"
)

// A Kubernetes fault's target leader is the pod of the member the system
// itself names as its leader, asked through the driver's address when the
// fault fires (kube.PodOf maps the member to a pod by name, IP or DNS name).
// Each system that can tell gives its driver a Leader (driver.LeaderFunc),
// in its home.

// leaderDrivers are the drivers leaderFinder can ask.
func leaderDrivers() []string {
	var out []string
	reg := all.Registry()
	for _, name := range reg.Names() {
		if reg[name].Leader != nil {
			out = append(out, name)
		}
	}
	return out
}

// leaderFinder asks a system for its leader, through the driver's
// properties (nil: dbrig cannot ask this one).
func leaderFinder(driver string) func(ctx context.Context, props map[string]string) (kube.Member, error) {
	find := all.Registry()[driver].Leader
	if find == nil {
		return nil
	}
	return func(ctx context.Context, props map[string]string) (kube.Member, error) {
		m, err := find(ctx, props)
		return kube.Member{Name: m.Name, Addrs: m.Addrs}, err
	}
}

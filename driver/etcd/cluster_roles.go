package etcd

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/dbrig/dbrig/cluster"
)

// Roles implements RoleResolver: etcd elects a leader among its members.
func (Cluster) Roles() []string { return []string{"leader", "follower"} }

// Resolve implements RoleResolver by asking every live member for its
// status: the leader is the member whose id the others name as leader.
func (Cluster) Resolve(ctx context.Context, nodes []cluster.Node, role string) ([]cluster.Node, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var leader uint64
	ids := map[uint64]cluster.Node{}
	var errs []error
	for _, n := range nodes {
		cli, err := etcdClient(ctx, []string{n.Addr})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		self, led, err := memberStatus(ctx, cli, n.Addr)
		cli.Close()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", n.Name, err))
			continue
		}
		ids[self] = n
		if led != 0 {
			leader = led
		}
	}
	if leader == 0 {
		return nil, fmt.Errorf("%w: no member knows a leader now: %v", cluster.ErrNoTarget, errors.Join(errs...))
	}
	var out []cluster.Node
	for id, n := range ids {
		if (role == "leader") == (id == leader) {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no live %s", cluster.ErrNoTarget, role)
	}
	return out, nil
}

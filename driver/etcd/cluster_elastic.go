package etcd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/dbrig/dbrig/cluster"
)

// GrowRoles implements Elastic: etcd adds voting members.
func (Cluster) GrowRoles() []string { return []string{"member"} }

// Grow implements Elastic: a member that the live members are told of
// (member add, in its Setup) and that starts with --initial-cluster-state
// existing, its client and peer URLs advertised like the others'.
func (e Cluster) Grow(l *cluster.Layout, live []cluster.Node, role, name string) (*cluster.NodeSpec, error) {
	if role != "member" {
		return nil, fmt.Errorf("etcd adds members, not %ss", role)
	}
	if len(live) == 0 {
		return nil, fmt.Errorf("no live member to join")
	}
	cp, err := l.Port(name, "client")
	if err != nil {
		return nil, err
	}
	pp, err := l.Port(name, "peer")
	if err != nil {
		return nil, err
	}
	client, peer := "http://"+cluster.HostPort(cp), "http://"+cluster.HostPort(pp)
	advClient, advPeer := client, peer
	if e.Advertise != nil {
		if advClient, err = advertise(e.Advertise, name, "client", cluster.HostPort(cp)); err != nil {
			return nil, err
		}
		if advPeer, err = advertise(e.Advertise, name, "peer", cluster.HostPort(pp)); err != nil {
			return nil, err
		}
	}
	var endpoints []string
	for _, n := range live {
		endpoints = append(endpoints, n.URL)
	}
	ns := &cluster.NodeSpec{
		Name: name, Role: "member", Binary: live[0].Binary, Version: live[0].Version,
		DataDir: l.NodeDir(name), Log: l.LogPath(name), URL: client, Durable: true,
		Ports: map[string]int{"client": cp, "peer": pp},
	}
	ns.Setup = func(ctx context.Context, _ cluster.RunFunc) error {
		cli, err := etcdClient(ctx, endpoints)
		if err != nil {
			return err
		}
		defer cli.Close()
		var resp *clientv3.MemberAddResponse
		err = whileUnhealthy(ctx, func() (err error) {
			resp, err = cli.MemberAdd(ctx, []string{advPeer})
			return err
		})
		if err != nil {
			return fmt.Errorf("member add: %w", err)
		}
		var initial []string
		for _, m := range resp.Members {
			mname := m.Name
			if m.ID == resp.Member.ID {
				mname = name
			}
			for _, u := range m.PeerURLs {
				initial = append(initial, mname+"="+u)
			}
		}
		ns.Args = append([]string{
			"--name", name, "--data-dir", ns.DataDir,
			"--listen-client-urls", client, "--advertise-client-urls", advClient,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", advPeer,
			"--initial-cluster", strings.Join(initial, ","), "--initial-cluster-state", "existing",
			"--logger", "zap", "--log-outputs", "stderr",
		}, e.Args...)
		return nil
	}
	ns.Ready = func(ctx context.Context) error { return etcdMemberReady(ctx, client) }
	return ns, nil
}

// Shrink implements Elastic: member remove, asked of the other members.
func (Cluster) Shrink(ctx context.Context, live []cluster.Node, n cluster.Node) error {
	var endpoints []string
	for _, o := range live {
		endpoints = append(endpoints, o.URL)
	}
	if len(endpoints) == 0 {
		return fmt.Errorf("no other live member to ask")
	}
	cli, err := etcdClient(ctx, endpoints)
	if err != nil {
		return err
	}
	defer cli.Close()
	list, err := cli.MemberList(ctx)
	if err != nil {
		return fmt.Errorf("member list: %w", err)
	}
	for _, m := range list.Members {
		if m.Name == n.Name {
			if err := whileUnhealthy(ctx, func() error { _, err := cli.MemberRemove(ctx, m.ID); return err }); err != nil {
				return fmt.Errorf("member remove: %w", err)
			}
			return nil
		}
	}
	return fmt.Errorf("%w: no member named %s", cluster.ErrNoTarget, n.Name)
}

// whileUnhealthy calls f until it does not fail with etcd's "unhealthy
// cluster": etcd refuses a member add or remove until every member has
// been connected for 5 s (its strict reconfig check), which is not so right
// after a start, an added member, or a member that came back.
func whileUnhealthy(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil || !errors.Is(err, rpctypes.ErrUnhealthy) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

package etcd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Cluster is the recipe of etcd members, all voting (default 3), named etcd1..N.
// Ports per member: "client" and "peer". Debian's etcd 3.4 server speaks the
// v3 gRPC API of the v3.6 Go client.
type Cluster struct {
	Members int    // default 3
	Binary  string // path of etcd; default "etcd" on $PATH
	Args    []string
	// Advertise, if set, gives the client and peer URLs members advertise
	// (dbrig's fault proxies, see proxy.go); they listen on their own.
	Advertise cluster.Advertiser
}

func (Cluster) System() string { return "etcd" }

func (e Cluster) Layout(l *cluster.Layout) ([]cluster.Stage, error) {
	install := "apt-get install etcd-server"
	if e.Binary != "" {
		install = "scripts/build-etcd.sh VERSION" // another version, from its Go module
	}
	bin, err := l.Binary("etcd", e.Binary, install, "etcd")
	if err != nil {
		return nil, err
	}
	n := e.Members
	if n <= 0 {
		n = 3
	}
	version := strings.TrimPrefix(l.Version(bin, "--version"), "etcd Version: ")
	type member struct{ name, client, peer, advClient, advPeer string }
	ms := make([]member, n)
	var initial []string
	for i := range ms {
		name := fmt.Sprintf("etcd%d", i+1)
		cp, err := l.Port(name, "client")
		if err != nil {
			return nil, err
		}
		pp, err := l.Port(name, "peer")
		if err != nil {
			return nil, err
		}
		ms[i] = member{name: name, client: "http://" + cluster.HostPort(cp), peer: "http://" + cluster.HostPort(pp)}
		ms[i].advClient, ms[i].advPeer = ms[i].client, ms[i].peer
		if e.Advertise != nil {
			if ms[i].advClient, err = advertise(e.Advertise, name, "client", cluster.HostPort(cp)); err != nil {
				return nil, err
			}
			if ms[i].advPeer, err = advertise(e.Advertise, name, "peer", cluster.HostPort(pp)); err != nil {
				return nil, err
			}
		}
		initial = append(initial, name+"="+ms[i].advPeer)
	}
	token := "dbrig-" + l.Dir // unique per cluster: members of another never join
	st := cluster.Stage{Name: "members", StopOneByOne: true}
	var endpoints []string
	for _, m := range ms {
		ns := &cluster.NodeSpec{
			Name: m.name, Role: "member", Binary: bin, Version: version,
			DataDir: l.NodeDir(m.name), Log: l.LogPath(m.name), URL: m.client, Durable: true,
			Ports: map[string]int{"client": portOf(m.client), "peer": portOf(m.peer)},
			Args: append([]string{
				"--name", m.name, "--data-dir", l.NodeDir(m.name),
				"--listen-client-urls", m.client, "--advertise-client-urls", m.advClient,
				"--listen-peer-urls", m.peer, "--initial-advertise-peer-urls", m.advPeer,
				"--initial-cluster", strings.Join(initial, ","),
				"--initial-cluster-token", token, "--initial-cluster-state", "new",
				"--logger", "zap", "--log-outputs", "stderr",
			}, e.Args...),
		}
		ns.Ready = func(ctx context.Context) error { return etcdMemberReady(ctx, m.client) }
		st.Nodes = append(st.Nodes, ns)
		endpoints = append(endpoints, m.client)
	}
	st.Ready = func(ctx context.Context) error { return etcdLeaderAgreed(ctx, endpoints) }
	return []cluster.Stage{st}, nil
}

func (Cluster) Props(nodes []cluster.Node) map[string]string {
	var eps []string
	for _, n := range nodes {
		eps = append(eps, n.Addr)
	}
	return map[string]string{"etcd.endpoints": strings.Join(eps, ",")}
}

// advertise asks a for the URL to advertise for a member's port.
func advertise(a cluster.Advertiser, node, port, addr string) (string, error) {
	adv, err := a.Advertise(node, port, addr)
	if err != nil {
		return "", fmt.Errorf("cluster: route %s's %s traffic: %w", node, port, err)
	}
	return "http://" + adv, nil
}

func portOf(url string) int {
	var p int
	fmt.Sscanf(url[strings.LastIndexByte(url, ':')+1:], "%d", &p)
	return p
}

func etcdClient(ctx context.Context, endpoints []string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{Endpoints: endpoints, Context: ctx,
		DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
}

// etcdMemberReady: the member answers endpoint status and knows a leader,
// and serves a linearizable read (which needs the quorum to work).
func etcdMemberReady(ctx context.Context, endpoint string) error {
	cli, err := etcdClient(ctx, []string{endpoint})
	if err != nil {
		return err
	}
	defer cli.Close()
	st, err := cli.Status(ctx, endpoint)
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	if st.Leader == 0 {
		return errors.New("no leader yet")
	}
	if _, err := cli.Get(ctx, "dbrig-ready-probe"); err != nil {
		return fmt.Errorf("linearizable read: %w", err)
	}
	return nil
}

// etcdLeaderAgreed: every member names the same leader.
func etcdLeaderAgreed(ctx context.Context, endpoints []string) error {
	cli, err := etcdClient(ctx, endpoints)
	if err != nil {
		return err
	}
	defer cli.Close()
	var leader uint64
	for _, ep := range endpoints {
		st, err := cli.Status(ctx, ep)
		if err != nil {
			return fmt.Errorf("%s: status: %w", ep, err)
		}
		if leader != 0 && st.Leader != leader {
			return fmt.Errorf("members disagree on the leader (%x, %x)", leader, st.Leader)
		}
		leader = st.Leader
	}
	if leader == 0 {
		return errors.New("no leader")
	}
	return nil
}

// newCluster builds the etcd recipe from system.cluster's options.
func newCluster(c spec.Cluster, given func(string) bool, refuse func(key, why string) error) (cluster.Recipe, error) {
	if k := driver.FirstGiven(given, "replicas", "sentinels"); k != "" {
		return nil, refuse(k, "etcd has members, not replicas or sentinels: give nodes")
	}
	r := Cluster{Members: c.Nodes, Binary: c.Binary}
	for _, k := range slices.Sorted(maps.Keys(c.Config)) {
		r.Args = append(r.Args, fmt.Sprintf("--%s=%s", k, c.Config[k]))
	}
	return r, nil
}

// Routed implements cluster.Routable: members advertise the proxies'
// addresses as their client and peer URLs.
func (e Cluster) Routed(a cluster.Advertiser) cluster.Recipe { e.Advertise = a; return e }

// Numbered implements cluster.Numbered: members etcd1..N.
func (e Cluster) Numbered() (prefix string, n int) { return "etcd", cmp.Or(max(e.Members, 0), 3) }

// Describe says what the cluster will be.
func (e Cluster) Describe() string { _, n := e.Numbered(); return fmt.Sprintf("etcd × %d", n) }

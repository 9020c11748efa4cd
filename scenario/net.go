package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/inject/proxy"
)

// Network routes a local cluster's traffic through dbrig's proxies, so the
// network faults have links to act on: every node's client traffic (the
// driver is pointed at a proxy in front of each node) and, where the recipe
// advertises addresses dbrig gives it (etcd), the peer traffic between
// nodes (each node's peers reach it through its peer proxy, which tells the
// connecting member by the X-PeerURLs header etcd sends with every peer
// request, so one peer's link can be cut while the others' stay).
type Network struct {
	seed uint64

	mu       sync.Mutex
	client   map[string]*proxy.Proxy // node → the proxy in front of its client port
	peer     map[string]*proxy.Proxy // node → the proxy in front of its peer port
	peerNode map[string]string       // a peer proxy's address → its node
	// upstream: the peer proxies are replicas' links to their primary
	// (PostgreSQL), one per replica, not proxies in front of each node.
	upstream bool
	pids     func() map[int]string // the nodes' PIDs now (nil until the cluster is up)
	closed   bool
}

// NewNetwork is a network with no proxies yet; seed seeds the proxies' randomness
// (a drop's, a delay's jitter).
func NewNetwork(seed int64) *Network {
	return &Network{seed: uint64(seed), client: map[string]*proxy.Proxy{}, peer: map[string]*proxy.Proxy{}, peerNode: map[string]string{}}
}

// Advertise implements cluster.Advertiser: a proxy in front of addr.
func (n *Network) Advertise(node, port, addr string) (string, error) {
	return n.advertise(node, port, "", addr)
}

// AdvertiseAt implements cluster.AddrAdvertiser: a proxy at listen in
// front of target.
func (n *Network) AdvertiseAt(node, port, listen, target string) error {
	_, err := n.advertise(node, port, listen, target)
	return err
}

func (n *Network) advertise(node, port, listen, addr string) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return "", errors.New("network closed")
	}
	o := proxy.Options{Seed: n.seed + uint64(len(n.client)+len(n.peer)) + 1, Listen: listen}
	if port == "peer" {
		o.Identify = n.identify
	}
	p, err := proxy.ListenWith(addr, o)
	if err != nil {
		return "", err
	}
	switch port {
	case "upstream":
		n.peer[node] = p
		n.upstream = true
	case "peer":
		n.peer[node] = p
		n.peerNode[p.Addr()] = node
	default:
		n.client[node] = p
	}
	return p.Addr(), nil
}

// identify names the node that opened a peer connection: from the
// X-PeerURLs header of etcd's raft requests, else (etcd's probes and
// version checks carry no such header, and share connections with raft
// messages) from the process that owns the connecting socket.
func (n *Network) identify(c net.Conn, first []byte) string {
	if node := n.fromHeader(first); node != "" {
		return node
	}
	n.mu.Lock()
	pids := n.pids
	n.mu.Unlock()
	if pids == nil {
		return ""
	}
	ra, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return ""
	}
	return ownerOf(ra.IP, ra.Port, pids())
}

// fromHeader is the node whose peer URL the X-PeerURLs header names.
func (n *Network) fromHeader(first []byte) string {
	const key = "\r\nx-peerurls:"
	i := bytes.Index(bytes.ToLower(first), []byte(key))
	if i < 0 {
		return ""
	}
	v := first[i+len(key):]
	if j := bytes.Index(v, []byte("\r\n")); j >= 0 {
		v = v[:j]
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, u := range strings.Split(string(v), ",") {
		u = strings.TrimSpace(u)
		u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
		if node, ok := n.peerNode[u]; ok {
			return node
		}
	}
	return ""
}

// Front puts a client proxy in front of every node that has none yet and
// returns the driver properties of the cluster with each node's client
// address replaced by its proxy's.
func (n *Network) Front(nodes []cluster.Node, props map[string]string) (map[string]string, error) {
	repl := map[string]string{}
	for _, nd := range nodes {
		n.mu.Lock()
		p, ok := n.client[nd.Name]
		n.mu.Unlock()
		if !ok {
			addr, err := n.Advertise(nd.Name, "client", nd.Addr)
			if err != nil {
				return nil, err
			}
			repl[nd.Addr] = addr
			continue
		}
		repl[nd.Addr] = p.Addr()
	}
	out := make(map[string]string, len(props))
	for k, v := range props {
		out[k] = replaceAddrs(v, repl)
	}
	return out, nil
}

// loopbackAddr is a whole 127.0.0.1:port in a property value.
var loopbackAddr = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)

// replaceAddrs replaces each whole address of repl in v (127.0.0.1:4068
// is not a prefix of 127.0.0.1:40689 here).
func replaceAddrs(v string, repl map[string]string) string {
	return loopbackAddr.ReplaceAllStringFunc(v, func(a string) string {
		if to, ok := repl[a]; ok {
			return to
		}
		return a
	})
}

// Known tells the network the cluster's nodes, so it can tell connections
// by the process that opened them; the peer connections opened before
// (while the cluster started) that it could not tell are reset, and come
// back identified.
func (n *Network) Known(c *cluster.Cluster) {
	n.mu.Lock()
	n.pids = func() map[int]string {
		out := map[int]string{}
		for _, nd := range c.Nodes() {
			out[nd.PID] = nd.Name
		}
		return out
	}
	peers := make([]*proxy.Proxy, 0, len(n.peer))
	for _, p := range n.peer {
		peers = append(peers, p)
	}
	n.mu.Unlock()
	for _, p := range peers {
		p.Reset("")
	}
}

// ownerOf is the node whose process owns the TCP socket bound to ip:port
// (the connecting side of a loopback connection: 127.0.0.1, or another
// 127.0.0.x a Cassandra node's connections to a peer proxy come from), from
// /proc/net/tcp and the nodes' file descriptors; "" when none does.
func ownerOf(ip net.IP, port int, pids map[int]string) string {
	ip4 := ip.To4()
	if ip4 == nil {
		return ""
	}
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return ""
	}
	// /proc/net/tcp writes the address as one 32-bit word in host (little-endian) order.
	want := fmt.Sprintf("%02X%02X%02X%02X:%04X", ip4[3], ip4[2], ip4[1], ip4[0], port)
	inode := ""
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) > 9 && f[1] == want {
			inode = f[9]
			break
		}
	}
	if inode == "" || inode == "0" {
		return ""
	}
	target := "socket:[" + inode + "]"
	for pid, node := range pids {
		dir := fmt.Sprintf("/proc/%d/fd", pid)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && l == target {
				return node
			}
		}
	}
	return ""
}

// forget closes the proxies of a node taken out of the cluster.
func (n *Network) forget(node string) {
	n.mu.Lock()
	var ps []*proxy.Proxy
	if p, ok := n.client[node]; ok {
		ps = append(ps, p)
		delete(n.client, node)
	}
	if p, ok := n.peer[node]; ok {
		ps = append(ps, p)
		delete(n.peer, node)
		delete(n.peerNode, p.Addr())
	}
	n.mu.Unlock()
	for _, p := range ps {
		p.Close()
	}
}

// Close stops every proxy.
func (n *Network) Close() {
	n.mu.Lock()
	n.closed = true
	var ps []*proxy.Proxy
	for _, p := range n.client {
		ps = append(ps, p)
	}
	for _, p := range n.peer {
		ps = append(ps, p)
	}
	n.mu.Unlock()
	for _, p := range ps {
		p.Close()
	}
}

// HasPeers tells whether peer traffic goes through the proxies.
func (n *Network) HasPeers() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.peer) > 0
}

// links are the links of node a network fault acts on: its client link
// (dbrig ↔ node), or its peer links (every other node ↔ node, both ways).
func (n *Network) links(node, link string) ([]inject.Link, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch link {
	case "client":
		p, ok := n.client[node]
		if !ok {
			return nil, fmt.Errorf("%w: node %s has no client proxy", inject.ErrNoLinks, node)
		}
		return []inject.Link{{Proxy: p, Name: "dbrig → " + node}}, nil
	case "peer":
		if n.upstream {
			return n.upstreamLinks(node)
		}
		own, ok := n.peer[node]
		if !ok {
			return nil, fmt.Errorf("%w: node %s's peer traffic does not go through dbrig", inject.ErrNoLinks, node)
		}
		out := []inject.Link{{Proxy: own, Name: "peers → " + node}}
		for _, other := range sortedKeys(n.peer) {
			if other != node {
				out = append(out, inject.Link{Proxy: n.peer[other], From: node, Name: node + " → " + other})
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown link %q (expected client or peer)", link)
}

// upstreamLinks are a PostgreSQL node's peer links: a replica's link to
// its primary, or, for the primary, every replica's.
func (n *Network) upstreamLinks(node string) ([]inject.Link, error) {
	if p, ok := n.peer[node]; ok {
		return []inject.Link{{Proxy: p, Name: node + " → primary"}}, nil
	}
	var out []inject.Link
	for _, rep := range sortedKeys(n.peer) {
		out = append(out, inject.Link{Proxy: n.peer[rep], Name: rep + " → " + node})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no replica reaches %s through dbrig", inject.ErrNoLinks, node)
	}
	return out, nil
}

// groupLinks are the peer links between nodes of different groups: a
// partition of them splits the cluster into the groups.
func (n *Network) groupLinks(groups [][]string) ([]inject.Link, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []inject.Link
	for gi, g := range groups {
		for _, dst := range g {
			p, ok := n.peer[dst]
			if !ok {
				return nil, fmt.Errorf("%w: node %s's peer traffic does not go through dbrig", inject.ErrNoLinks, dst)
			}
			for gj, h := range groups {
				if gi == gj {
					continue
				}
				for _, src := range h {
					out = append(out, inject.Link{Proxy: p, From: src, Name: src + " → " + dst})
				}
			}
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TrafficCounts are the counters of every client proxy now: bytes up,
// bytes down and connections, by node.
func (n *Network) TrafficCounts() map[string][3]int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make(map[string][3]int64, len(n.client))
	for node, p := range n.client {
		up, down, conns := p.Traffic()
		out[node] = [3]int64{up, down, conns}
	}
	return out
}

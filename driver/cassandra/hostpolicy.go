package cassandra

import (
	"sync"
	"sync/atomic"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// hostRoundRobin is gocql's round-robin host selection with hosts told
// apart by host ID. gocql's own policies tell them apart by address alone
// (HostInfo.Equal), which nodes sharing 127.0.0.1 defeat: a second node is
// not added, and removing one host removes every host of the address. Without
// host lookup (cassandra.discover=false) the session first knows the node
// under a made-up ID; when the control connection reconnects after an
// outage it adds the node under its real ID (refused: same address) and
// removes the made-up one (by address: the policy is then empty), and every
// query failed with "no hosts available in the pool" until the session
// closed (issue 30).
type hostRoundRobin struct {
	mu    sync.Mutex
	hosts atomic.Pointer[[]*gocql.HostInfo] // copied on write
	next  atomic.Uint64
}

var _ gocql.HostSelectionPolicy = (*hostRoundRobin)(nil)

func (p *hostRoundRobin) list() []*gocql.HostInfo {
	if l := p.hosts.Load(); l != nil {
		return *l
	}
	return nil
}

// AddHost adds host unless one with its ID is there.
func (p *hostRoundRobin) AddHost(host *gocql.HostInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.list()
	for _, h := range l {
		if same(h, host) {
			return
		}
	}
	n := append(append(make([]*gocql.HostInfo, 0, len(l)+1), l...), host)
	p.hosts.Store(&n)
}

// same tells whether a and b are one node: one HostInfo or one host ID
// (the ring gives every host one; a HostInfo made outside has none).
func same(a, b *gocql.HostInfo) bool {
	return a == b || a.HostID() != "" && a.HostID() == b.HostID()
}

// RemoveHost removes the host with host's ID.
func (p *hostRoundRobin) RemoveHost(host *gocql.HostInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.list()
	n := make([]*gocql.HostInfo, 0, len(l))
	for _, h := range l {
		if !same(h, host) {
			n = append(n, h)
		}
	}
	p.hosts.Store(&n)
}

func (p *hostRoundRobin) HostUp(host *gocql.HostInfo)               { p.AddHost(host) }
func (p *hostRoundRobin) HostDown(host *gocql.HostInfo)             { p.RemoveHost(host) }
func (p *hostRoundRobin) SetPartitioner(string)                     {}
func (p *hostRoundRobin) KeyspaceChanged(gocql.KeyspaceUpdateEvent) {}
func (p *hostRoundRobin) Init(*gocql.Session)                       {}
func (p *hostRoundRobin) IsLocal(*gocql.HostInfo) bool              { return true }

// Pick returns each host once, starting one further on at each call.
func (p *hostRoundRobin) Pick(gocql.ExecutableStatement) gocql.NextHost {
	l := p.list()
	start := int(p.next.Add(1))
	i := 0
	return func() gocql.SelectedHost {
		if i >= len(l) {
			return nil
		}
		h := l[(start+i)%len(l)]
		i++
		return selected{h}
	}
}

// selected is a picked host; Mark has nothing to learn.
type selected struct{ h *gocql.HostInfo }

func (s selected) Info() *gocql.HostInfo { return s.h }
func (s selected) Mark(error)            {}

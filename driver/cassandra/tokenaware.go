package cassandra

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// tokenAware sends a statement that has a routing key (every prepared
// statement on one partition: Read, Insert, Update, Delete) to the replicas
// of its key first, starting one replica further on at each call, then to
// the other hosts round-robin; a statement without one goes round-robin.
// gocql's own token-aware policy keeps its hosts in a list that tells them
// apart by address (HostInfo.Equal): of nodes sharing one (the recipe's on
// 127.0.0.1, or nodes behind proxies) it kept the first, so its ring had
// that node alone and every request went to it, replica or not (issue 30).
// This one keys hosts by host ID, as hostRoundRobin does.
//
// Replicas are those of the keyspace's replication: SimpleStrategy's
// replication_factor distinct hosts walking the ring from the key's token;
// NetworkTopologyStrategy's factor per data center, the same way within
// each (racks are not considered). Only the Murmur3 partitioner is known;
// with another, every statement goes round-robin.
type tokenAware struct {
	hostRoundRobin // the fallback, and the hosts by ID

	// keyspace is that of a statement that names none: a batch of
	// keyspace-qualified inserts (gocql's Batch knows no keyspace).
	keyspace string

	sess   atomic.Pointer[gocql.Session]
	murmur atomic.Bool // the cluster's partitioner is Murmur3's
	ringMu sync.Mutex  // a host change and the ring of its hosts, one at a time
	ring   atomic.Pointer[ring]
	next   atomic.Uint64 // which replica a pick starts at

	mu     sync.Mutex
	factor map[string]map[string]int // keyspace → data center ("" for any) → replicas; nil: unknown
}

var _ gocql.HostSelectionPolicy = (*tokenAware)(nil)

// ring is every host's tokens, ascending.
type ring struct {
	tokens []int64
	hosts  []*gocql.HostInfo
}

func (p *tokenAware) Init(s *gocql.Session) { p.sess.Store(s) }

func (p *tokenAware) SetPartitioner(name string) {
	p.murmur.Store(strings.HasSuffix(name, "Murmur3Partitioner"))
}

func (p *tokenAware) AddHost(h *gocql.HostInfo) {
	p.ringMu.Lock()
	defer p.ringMu.Unlock()
	p.hostRoundRobin.AddHost(h)
	p.rebuild()
}

func (p *tokenAware) RemoveHost(h *gocql.HostInfo) {
	p.ringMu.Lock()
	defer p.ringMu.Unlock()
	p.hostRoundRobin.RemoveHost(h)
	p.rebuild()
}

func (p *tokenAware) HostUp(h *gocql.HostInfo)   { p.AddHost(h) }
func (p *tokenAware) HostDown(h *gocql.HostInfo) { p.RemoveHost(h) }

// KeyspaceChanged forgets the keyspace's replication: it is read again
// when a statement on it is next picked for.
func (p *tokenAware) KeyspaceChanged(u gocql.KeyspaceUpdateEvent) {
	p.mu.Lock()
	delete(p.factor, u.Keyspace)
	p.mu.Unlock()
}

// rebuild makes the ring of the hosts there are now.
func (p *tokenAware) rebuild() {
	type entry struct {
		t int64
		h *gocql.HostInfo
	}
	var es []entry
	for _, h := range p.list() {
		for _, s := range h.Tokens() {
			if t, err := strconv.ParseInt(s, 10, 64); err == nil {
				es = append(es, entry{t, h})
			}
		}
	}
	slices.SortFunc(es, func(a, b entry) int {
		if a.t < b.t {
			return -1
		}
		if a.t > b.t {
			return 1
		}
		return 0
	})
	r := &ring{tokens: make([]int64, len(es)), hosts: make([]*gocql.HostInfo, len(es))}
	for i, e := range es {
		r.tokens[i], r.hosts[i] = e.t, e.h
	}
	p.ring.Store(r)
}

// replication is the keyspace's replicas per data center, read from the
// session's schema once (nil when it cannot be read).
func (p *tokenAware) replication(keyspace string) map[string]int {
	p.mu.Lock()
	f, ok := p.factor[keyspace]
	p.mu.Unlock()
	if ok {
		return f
	}
	s := p.sess.Load()
	if s == nil || keyspace == "" {
		return nil
	}
	if ks, err := s.KeyspaceMetadata(keyspace); err == nil {
		f = factors(ks.StrategyClass, ks.StrategyOptions)
	}
	p.mu.Lock()
	if p.factor == nil {
		p.factor = map[string]map[string]int{}
	}
	p.factor[keyspace] = f
	p.mu.Unlock()
	return f
}

// factors reads a keyspace's replication options: SimpleStrategy's
// replication_factor under "", NetworkTopologyStrategy's factor of each
// data center; nil for any other strategy (LocalStrategy: system tables).
func factors(class string, opts map[string]any) map[string]int {
	num := func(v any) int {
		switch v := v.(type) {
		case int:
			return v
		case string:
			n, _ := strconv.Atoi(v)
			return n
		}
		return 0
	}
	switch {
	case strings.HasSuffix(class, "SimpleStrategy"):
		if n := num(opts["replication_factor"]); n > 0 {
			return map[string]int{"": n}
		}
	case strings.HasSuffix(class, "NetworkTopologyStrategy"):
		f := map[string]int{}
		for dc, v := range opts {
			if n := num(v); dc != "class" && n > 0 {
				f[dc] = n
			}
		}
		if len(f) > 0 {
			return f
		}
	}
	return nil
}

// replicas are the hosts holding the key of token, in ring order from it.
func (r *ring) replicas(token int64, factor map[string]int) []*gocql.HostInfo {
	n := len(r.tokens)
	if n == 0 {
		return nil
	}
	want := 0
	for _, f := range factor {
		want += f
	}
	_, simple := factor[""]
	got := make(map[string]int, len(factor))
	out := make([]*gocql.HostInfo, 0, want)
	i, _ := slices.BinarySearch(r.tokens, token) // the first token >= token owns it
	for k := 0; k < n && len(out) < want; k++ {
		h := r.hosts[(i+k)%n]
		dc := ""
		if !simple {
			dc = h.DataCenter()
		}
		if got[dc] >= factor[dc] || slices.ContainsFunc(out, func(o *gocql.HostInfo) bool { return same(o, h) }) {
			continue
		}
		got[dc]++
		out = append(out, h)
	}
	return out
}

// Pick returns the key's replicas first, each once, then the other hosts.
func (p *tokenAware) Pick(q gocql.ExecutableStatement) gocql.NextHost {
	rest := p.hostRoundRobin.Pick(q)
	if q == nil || !p.murmur.Load() {
		return rest
	}
	key, err := q.GetRoutingKey()
	r := p.ring.Load()
	if err != nil || key == nil || r == nil {
		return rest
	}
	ks := q.Keyspace()
	if ks == "" {
		ks = p.keyspace
	}
	factor := p.replication(ks)
	if factor == nil {
		return rest
	}
	replicas := r.replicas(murmur3(key), factor)
	start := int(p.next.Add(1))
	i := 0
	return func() gocql.SelectedHost {
		for i < len(replicas) {
			h := replicas[(start+i)%len(replicas)]
			i++
			if h.IsUp() {
				return selected{h}
			}
		}
		for {
			h := rest()
			if h == nil || !slices.ContainsFunc(replicas, func(o *gocql.HostInfo) bool { return same(o, h.Info()) }) {
				return h
			}
		}
	}
}

// replicaSet names the hosts holding the partition of key (a routing key)
// in keyspace: their host IDs, sorted and joined, so that two keys with the
// same replicas in another ring order share it. "" when the ring, the
// partitioner or the keyspace's replication is unknown.
func (p *tokenAware) replicaSet(keyspace string, key []byte) string {
	r := p.ring.Load()
	if r == nil || !p.murmur.Load() {
		return ""
	}
	factor := p.replication(keyspace)
	if factor == nil {
		return ""
	}
	hs := r.replicas(murmur3(key), factor)
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.HostID()
	}
	slices.Sort(ids)
	return strings.Join(ids, ",")
}

package cassandra

import (
	"encoding/hex"
	"net"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Cassandra's Murmur3 takes the tail bytes as signed: a key with bytes
// above 0x7f in its tail hashes differently from the reference
// MurmurHash3 (the vector is gocql's).
func TestMurmur3(t *testing.T) {
	key, _ := hex.DecodeString("00104327529fb645dd00b883ec39ae448bb800000400066a6b00")
	if got := murmur3(key); got != -9223371632693506265 {
		t.Errorf("murmur3 = %d", got)
	}
	if got := murmur3(nil); got != 0 {
		t.Errorf("murmur3(empty) = %d, want 0", got)
	}
}

// ringHost is a node at 127.0.0.1 (all share it) with its own ID.
func ringHost(t *testing.T, dc string, tokens ...string) *gocql.HostInfo {
	t.Helper()
	h, err := gocql.NewTestHostInfoFromRow(map[string]any{"host_id": gocql.MustRandomUUID(), "data_center": dc,
		"rpc_address": net.IPv4(127, 0, 0, 1), "tokens": tokens})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestReplicas(t *testing.T) {
	a, b, c := ringHost(t, "dc1", "-100"), ringHost(t, "dc1", "0"), ringHost(t, "dc2", "100", "200")
	p := &tokenAware{}
	for _, h := range []*gocql.HostInfo{a, b, c} {
		p.AddHost(h)
	}
	r := p.ring.Load()
	tests := []struct {
		name   string
		token  int64
		factor map[string]int
		want   []*gocql.HostInfo
	}{
		{"owner", -100, map[string]int{"": 1}, []*gocql.HostInfo{a}},
		{"next token owns", -99, map[string]int{"": 1}, []*gocql.HostInfo{b}},
		{"wraps around", 201, map[string]int{"": 2}, []*gocql.HostInfo{a, b}},
		{"each host once", 50, map[string]int{"": 3}, []*gocql.HostInfo{c, a, b}},
		{"no more than the hosts", 50, map[string]int{"": 5}, []*gocql.HostInfo{c, a, b}},
		{"per data center", 50, map[string]int{"dc1": 1, "dc2": 1}, []*gocql.HostInfo{c, a}},
		{"one data center", 50, map[string]int{"dc1": 2}, []*gocql.HostInfo{a, b}},
	}
	for _, tc := range tests {
		got := r.replicas(tc.token, tc.factor)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d replicas, want %d", tc.name, len(got), len(tc.want))
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: replica %d is %s, want %s", tc.name, i, got[i].HostID(), tc.want[i].HostID())
			}
		}
	}
	p.RemoveHost(c)
	if got := p.ring.Load().replicas(50, map[string]int{"": 1}); len(got) != 1 || got[0] != a {
		t.Errorf("after removing c: %v, want a", got)
	}
}

func TestFactors(t *testing.T) {
	tests := []struct {
		class string
		opts  map[string]any
		want  map[string]int
	}{
		{"org.apache.cassandra.locator.SimpleStrategy", map[string]any{"replication_factor": "2"}, map[string]int{"": 2}},
		{"org.apache.cassandra.locator.NetworkTopologyStrategy", map[string]any{"class": "x", "dc1": "3", "dc2": 1}, map[string]int{"dc1": 3, "dc2": 1}},
		{"org.apache.cassandra.locator.LocalStrategy", nil, nil},
		{"org.apache.cassandra.locator.SimpleStrategy", map[string]any{"replication_factor": "x"}, nil},
	}
	for _, tc := range tests {
		got := factors(tc.class, tc.opts)
		if len(got) != len(tc.want) {
			t.Errorf("%s %v: %v, want %v", tc.class, tc.opts, got, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s %v: %v, want %v", tc.class, tc.opts, got, tc.want)
			}
		}
	}
}

// stmt is a statement on one key of keyspace ks.
type stmt struct{ key []byte }

func (s stmt) GetRoutingKey() ([]byte, error) { return s.key, nil }
func (stmt) Keyspace() string                 { return "ks" }
func (stmt) Table() string                    { return "t" }
func (stmt) IsIdempotent() bool               { return true }
func (stmt) GetHostID() string                { return "" }
func (stmt) Statement() gocql.Statement       { return nil }

// A statement goes to its key's replicas first, each pick starting at
// another one, then to the other hosts; each host once.
func TestPickReplicasFirst(t *testing.T) {
	a, b, c := ringHost(t, "dc1", "-3074457345618258603"), ringHost(t, "dc1", "3074457345618258602"), ringHost(t, "dc1", "-9223372036854775808")
	p := &tokenAware{factor: map[string]map[string]int{"ks": {"": 2}}}
	p.SetPartitioner("org.apache.cassandra.dht.Murmur3Partitioner")
	for _, h := range []*gocql.HostInfo{a, b, c} {
		p.AddHost(h)
	}
	key := []byte("user1")
	want := p.ring.Load().replicas(murmur3(key), map[string]int{"": 2})
	if len(want) != 2 {
		t.Fatalf("%d replicas", len(want))
	}
	// Three picks: a round robin over the three hosts would put the
	// non-replica among the first two in at least two of them.
	var firsts []*gocql.HostInfo
	for range 3 {
		got := picks(pickerOf(p, stmt{key}))
		if len(got) != 3 || got[0] == got[1] || got[1] == got[2] || got[0] == got[2] {
			t.Fatalf("picked %v, want each of the 3 hosts once", got)
		}
		for _, h := range got[:2] {
			if h != want[0] && h != want[1] {
				t.Errorf("picked %s among the first two, not a replica", h.HostID())
			}
		}
		firsts = append(firsts, got[0])
	}
	if firsts[0] == firsts[1] {
		t.Errorf("two picks start at the same replica")
	}
	// No routing key, or a keyspace whose replication is unknown: round robin.
	p.factor = map[string]map[string]int{"ks": nil}
	if got := picks(pickerOf(p, stmt{key})); len(got) != 3 {
		t.Errorf("round robin picked %d hosts", len(got))
	}
}

// pickFor is p picking for s, as picks wants it.
type pickFor struct {
	*tokenAware
	s gocql.ExecutableStatement
}

func pickerOf(p *tokenAware, s gocql.ExecutableStatement) gocql.HostSelectionPolicy {
	return pickFor{p, s}
}

func (p pickFor) Pick(gocql.ExecutableStatement) gocql.NextHost { return p.tokenAware.Pick(p.s) }

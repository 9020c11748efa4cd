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

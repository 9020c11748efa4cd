package cassandra

import (
	"net"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

func picks(p gocql.HostSelectionPolicy) []*gocql.HostInfo {
	var got []*gocql.HostInfo
	next := p.Pick(nil)
	for h := next(); h != nil; h = next() {
		got = append(got, h.Info())
	}
	return got
}

// Nodes sharing an address (the recipe's, or nodes behind proxies) are
// distinct hosts: gocql's round robin keeps only the first and removes
// them all at once.
func TestHostRoundRobinSharedAddress(t *testing.T) {
	host := func() *gocql.HostInfo {
		h, err := gocql.NewHostInfoFromAddrPort(net.IPv4(127, 0, 0, 1), 9042)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	a, b, c := host(), host(), host()
	p := &hostRoundRobin{}
	for _, h := range []*gocql.HostInfo{a, b, c, b} {
		p.AddHost(h)
	}
	if got := picks(p); len(got) != 3 {
		t.Fatalf("picked %d hosts, want 3 (each once)", len(got))
	}
	first := picks(p)[0]
	if second := picks(p)[0]; second == first {
		t.Errorf("two picks start at the same host")
	}
	p.HostDown(b)
	got := picks(p)
	if len(got) != 2 || got[0] == b || got[1] == b || got[0] == got[1] {
		t.Errorf("after HostDown(b): %v, want a and c", got)
	}
	p.HostUp(b)
	p.RemoveHost(a)
	p.RemoveHost(c)
	if got := picks(p); len(got) != 1 || got[0] != b {
		t.Errorf("after removing a and c: %v, want b", got)
	}
	p.RemoveHost(b)
	if got := picks(p); len(got) != 0 {
		t.Errorf("empty policy picked %v", got)
	}
}

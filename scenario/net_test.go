package scenario

import (
	"context"
	"errors"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver/etcd"
	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/run"
)

// routedEtcd stands up three etcd members with their client and peer
// traffic through a network of proxies; it returns the client proxies'
// endpoints by node name.
func routedEtcd(t *testing.T) (*cluster.Cluster, *Network, map[string]string) {
	t.Helper()
	nw := NewNetwork(1)
	t.Cleanup(nw.Close)
	r, ok := cluster.WithAdvertiser(etcd.Cluster{}, nw)
	if !ok {
		t.Fatal("etcd takes no advertiser")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := upKnown(ctx, t, nw, r)
	props, err := nw.Front(c.Nodes(), c.Props())
	if err != nil {
		t.Fatal(err)
	}
	eps := strings.Split(props["etcd.endpoints"], ",")
	byNode := map[string]string{}
	for i, n := range c.Nodes() {
		if eps[i] == n.Addr || eps[i] != nw.client[n.Name].Addr() {
			t.Fatalf("endpoint %d is %s, want %s's client proxy %s", i, eps[i], n.Name, nw.client[n.Name].Addr())
		}
		byNode[n.Name] = eps[i]
	}
	return c, nw, byNode
}

func etcdAt(t *testing.T, ep string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// median of n linearizable reads through one client.
func medianGet(t *testing.T, cli *clientv3.Client, n int) time.Duration {
	t.Helper()
	var ds []time.Duration
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		began := time.Now()
		_, err := cli.Get(ctx, "dbrig-net-test")
		cancel()
		if err != nil {
			t.Fatalf("get: %v", err)
		}
		ds = append(ds, time.Since(began))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[n/2]
}

// events collects what an injector emits.
type events struct {
	mu  sync.Mutex
	evs []run.Event
	got chan run.Event
}

func newEvents() *events { return &events{got: make(chan run.Event, 64)} }

func (e *events) emit(ev run.Event) {
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
	e.got <- ev
}

func (e *events) next(t *testing.T, kind string) run.Event {
	t.Helper()
	select {
	case ev := <-e.got:
		if ev.Kind != kind || strings.HasPrefix(ev.Outcome, "failed") {
			t.Fatalf("event %+v, want %s that did not fail", ev, kind)
		}
		return ev
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s event", kind)
	}
	return run.Event{}
}

// TestEtcdNetworkFaults: a 100 ms delay on etcd1's client link shows in the
// operations through etcd1 only, and heals; a peer partition of the leader
// makes the others elect a new one, and after the heal all agree again.
func TestEtcdNetworkFaults(t *testing.T) {
	c, nw, eps := routedEtcd(t)
	clients := map[string]*clientv3.Client{}
	base := map[string]time.Duration{}
	for name, ep := range eps {
		clients[name] = etcdAt(t, ep)
		medianGet(t, clients[name], 3) // connect
		base[name] = medianGet(t, clients[name], 9)
	}
	t.Logf("baseline median reads: %v", base)

	delay, err := inject.NewDelay(100*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	evs := newEvents()
	in := newInjector([]Injection{{Name: "slow-etcd1", Fault: delay, Target: "etcd1", Link: "client", At: 0, For: time.Minute}}, c, nw, evs.emit)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); in.Run(ctx) }()
	in.MeasureStarted(time.Now())
	evs.next(t, EventFaultStart)
	for name, cli := range clients {
		got := medianGet(t, cli, 5)
		extra := got - base[name]
		t.Logf("during the delay: %s median read %v (+%v)", name, got, extra)
		if name == "etcd1" && (extra < 90*time.Millisecond || extra > 250*time.Millisecond) {
			t.Errorf("etcd1 with a 100ms client delay: +%v, want about +100ms", extra)
		}
		if name != "etcd1" && extra > 40*time.Millisecond {
			t.Errorf("%s is not delayed, but its reads are +%v slower", name, extra)
		}
	}
	cancel() // the run ends: the delay is healed
	<-done
	evs.next(t, EventFaultEnd)
	if got := medianGet(t, clients["etcd1"], 5); got > base["etcd1"]+40*time.Millisecond {
		t.Errorf("etcd1 after the heal: %v, baseline %v", got, base["etcd1"])
	}

	// Partition the leader from its peers: its peers' connections from it
	// and to it are cut, so the two others elect a new leader.
	leader, err := c.Resolve(context.Background(), "leader")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the reset probes reconnect
	for name, p := range nw.peer {
		srcs := p.Sources()
		for other := range eps {
			if other != name && srcs[other] == 0 {
				t.Errorf("peer connections to %s by source: %v, want some from %s", name, srcs, other)
			}
		}
		if srcs[""] > 0 {
			t.Errorf("peer connections to %s by source: %v, want every one identified", name, srcs)
		}
	}
	part := inject.Partition{}
	evs = newEvents()
	in = newInjector([]Injection{{Name: "isolate-leader", Fault: part, Target: leader[0].Name, Link: "peer", For: 4 * time.Second}}, c, nw, evs.emit)
	done = make(chan struct{})
	go func() { defer close(done); in.Run(context.Background()) }()
	in.MeasureStarted(time.Now())
	evs.next(t, EventFaultStart)
	var other string
	for name := range eps {
		if name != leader[0].Name {
			other = name
		}
	}
	newLeader := uint64(0)
	deadline := time.Now().Add(4 * time.Second)
	old := uint64(0)
	for time.Now().Before(deadline) {
		sctx, scancel := context.WithTimeout(context.Background(), time.Second)
		st, err := clients[other].Status(sctx, eps[other])
		ost, oerr := clients[leader[0].Name].Status(sctx, eps[leader[0].Name])
		scancel()
		if oerr == nil && old == 0 {
			old = ost.Header.MemberId
		}
		if err == nil && st.Leader != 0 && old != 0 && st.Leader != old {
			newLeader = st.Leader
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if newLeader == 0 {
		t.Fatalf("%s cut from its peers, but %s still follows it", leader[0].Name, other)
	}
	t.Logf("%s isolated: %s now follows %x", leader[0].Name, other, newLeader)
	<-done
	evs.next(t, EventFaultEnd)
	// Healed: every member serves a linearizable read again (it needs the
	// quorum and a leader all agree on).
	for name, cli := range clients {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := cli.Get(ctx, "after-heal")
		cancel()
		if err != nil {
			t.Errorf("%s after the partition healed: %v", name, err)
		}
	}
}

// upKnown starts recipe r's cluster (skipped when its binary is missing,
// unless the servers are required), stops it at the test's end, and makes
// its nodes known to nw.
func upKnown(ctx context.Context, t *testing.T, nw *Network, r cluster.Recipe) *cluster.Cluster {
	t.Helper()
	c, err := cluster.Up(ctx, r, cluster.Options{})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Down(context.Background()) })
	nw.Known(c)
	return c
}

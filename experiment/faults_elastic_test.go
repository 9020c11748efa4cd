package experiment

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver/redis"

	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/run"
)

// TestEtcdAddRemoveNode: on three etcd members that dbrig started with
// their traffic through its proxies, add-node adds a fourth member (member
// add, then it starts with the cluster's state, its URLs advertised through
// proxies of its own) and remove-node takes etcd2 out (member remove, then
// it is stopped). Afterwards the members are etcd1, etcd3 and etcd4, the
// new member serves linearizable reads, and its peer link can be cut like
// any other's.
func TestEtcdAddRemoveNode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd cluster")
	}
	c, nw, eps := routedEtcd(t)
	add, err := inject.New("add-node", inject.Options{Role: "member"})
	if err != nil {
		t.Fatal(err)
	}
	remove, _ := inject.New("remove-node", inject.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// One after the other: etcd takes one membership change at a time
	// (each waits until every member has been connected for 5 s).
	fire := func(inj Injection) run.Event {
		evs := newEvents()
		in := newInjector([]Injection{inj}, c, nw, evs.emit)
		done := make(chan struct{})
		go func() { defer close(done); in.run(ctx) }()
		in.measureStarted(time.Now())
		ev := evs.next(t, EventFault)
		<-done
		return ev
	}
	grow := fire(Injection{Name: "grow", Fault: add, Target: "member"})
	shrink := fire(Injection{Name: "shrink", Fault: remove, Target: "etcd2"})
	t.Logf("%s: %s: %s", grow.Name, grow.Detail, grow.Outcome)
	t.Logf("%s: %s: %s", shrink.Name, shrink.Detail, shrink.Outcome)
	if grow.Outcome != "injected" || !strings.Contains(grow.Detail, "added etcd4 (pid") {
		t.Errorf("add-node: %s / %s", grow.Detail, grow.Outcome)
	}
	if shrink.Outcome != "injected" || !strings.Contains(shrink.Detail, "etcd2 (member") {
		t.Errorf("remove-node: %s / %s", shrink.Detail, shrink.Outcome)
	}
	cli := etcdAt(t, eps["etcd1"])
	list, err := cli.MemberList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Members {
		names = append(names, m.Name)
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "etcd1,etcd3,etcd4" {
		t.Errorf("members %v, want etcd1, etcd3, etcd4", names)
	}
	var live []string
	var etcd4 string
	for _, n := range c.Nodes() {
		if n.Alive() {
			live = append(live, n.Name)
		}
		if n.Name == "etcd4" {
			etcd4 = n.Addr
		}
	}
	if strings.Join(live, ",") != "etcd1,etcd3,etcd4" {
		t.Errorf("the cluster's live nodes %v, want etcd1, etcd3, etcd4", live)
	}
	if _, err := etcdAt(t, etcd4).Get(ctx, "f9-elastic-probe"); err != nil {
		t.Errorf("the new member does not serve a linearizable read: %v", err)
	}
	if links, err := nw.links("etcd4", "peer"); err != nil || len(links) != 3 {
		t.Errorf("etcd4's peer links %v, %v: want its own and one from each of the 2 others", links, err)
	}
}

// TestRedisAddRemoveReplica: add-node on a Redis primary + replica that
// dbrig started adds redis-replica2, replicating the primary; remove-node
// stops redis-replica1, which the primary then no longer lists.
func TestRedisAddRemoveReplica(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cluster.Up(ctx, redis.Cluster{Replicas: 1}, cluster.Options{})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(context.Background())
	m := membersOf{c: c, mu: &sync.Mutex{}}
	added, err := m.AddNode(ctx, "replica")
	if err != nil || !strings.HasPrefix(added, "redis-replica2 (pid ") {
		t.Fatalf("add-node: %q, %v", added, err)
	}
	slaves := func() string {
		cli := goredis.NewClient(&goredis.Options{Addr: c.Addrs("primary")[0]})
		defer cli.Close()
		info, err := cli.Info(ctx, "replication").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(info, "\n") {
			if strings.HasPrefix(l, "connected_slaves:") {
				return strings.TrimSpace(l)
			}
		}
		return ""
	}
	if got := slaves(); got != "connected_slaves:2" {
		t.Errorf("after add-node the primary has %q, want 2 replicas", got)
	}
	if err := m.RemoveNode(ctx, "redis-replica1"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for slaves() != "connected_slaves:1" && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if got := slaves(); got != "connected_slaves:1" {
		t.Errorf("after remove-node the primary has %q, want 1 replica", got)
	}
	var names []string
	for _, n := range c.Nodes() {
		names = append(names, n.Name)
	}
	if strings.Join(names, ",") != "redis-primary,redis-replica2" {
		t.Errorf("nodes %v", names)
	}
}

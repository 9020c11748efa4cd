package experiment

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

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

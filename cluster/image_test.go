package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// An image of a PostgreSQL primary and its replica, and of three etcd
// members, taken with every node stopped, puts back what was there when it
// was taken: later writes are gone on every node, the nodes serve on the
// same ports with new PIDs, and the replica still follows the primary.
func TestImagePostgres(t *testing.T) {
	c := up(t, Postgres{Replicas: 1, Settings: map[string]string{"fsync": "off"}}, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	exec := func(sql string) {
		t.Helper()
		p, err := pgx.Connect(ctx, c.Props()["pg.url"])
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close(ctx)
		if _, err := p.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// rows reads t's keys on node n, waiting for the replica to catch up.
	rows := func(n Node, want string) string {
		t.Helper()
		var got string
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			p, err := pgx.Connect(ctx, n.URL)
			if err == nil {
				err = p.QueryRow(ctx, "SELECT coalesce(string_agg(k, ',' ORDER BY k), '') FROM t").Scan(&got)
				p.Close(ctx)
			}
			if err == nil && got == want || time.Now().After(deadline) {
				return got
			}
		}
	}
	exec("CREATE TABLE t (k text PRIMARY KEY); INSERT INTO t VALUES ('a'), ('b')")
	before := c.Nodes()
	for _, n := range before {
		if got := rows(n, "a,b"); got != "a,b" {
			t.Fatalf("%s before the image: %q", n.Name, got)
		}
	}
	took := time.Now()
	if err := c.SaveImage(ctx, "one"); err != nil {
		t.Fatalf("SaveImage: %v", err)
	}
	t.Logf("saved in %v", time.Since(took).Round(time.Millisecond))
	exec("DELETE FROM t WHERE k = 'a'; INSERT INTO t VALUES ('c')")
	took = time.Now()
	if err := c.RestoreImage(ctx, "one"); err != nil {
		t.Fatalf("RestoreImage: %v", err)
	}
	t.Logf("restored in %v", time.Since(took).Round(time.Millisecond))
	after := c.Nodes()
	if len(after) != len(before) {
		t.Fatalf("%d nodes after, %d before", len(after), len(before))
	}
	for i, n := range after {
		if n.Name != before[i].Name || n.Addr != before[i].Addr || n.PID == before[i].PID {
			t.Errorf("node %d: %s %s pid %d after, %s %s pid %d before: want the same name and address, a new PID",
				i, n.Name, n.Addr, n.PID, before[i].Name, before[i].Addr, before[i].PID)
		}
		if got := rows(n, "a,b"); got != "a,b" {
			t.Errorf("%s after the restore: %q, want a,b", n.Name, got)
		}
	}
	assertGone(t, before, time.Second)
	// Replication still runs from the restored primary.
	exec("INSERT INTO t VALUES ('d')")
	for _, n := range after {
		if got := rows(n, "a,b,d"); got != "a,b,d" {
			t.Errorf("%s after a write following the restore: %q, want a,b,d", n.Name, got)
		}
	}
	if err := c.RestoreImage(ctx, "two"); !errors.Is(err, ErrNoImage) {
		t.Errorf("RestoreImage of an image never taken: %v, want ErrNoImage", err)
	}
	if err := c.SaveImage(ctx, "../x"); err == nil {
		t.Error("SaveImage accepted the name ../x")
	}
	if err := c.DropImage("one"); err != nil {
		t.Fatal(err)
	}
	if err := c.RestoreImage(ctx, "one"); !errors.Is(err, ErrNoImage) {
		t.Errorf("RestoreImage of a dropped image: %v, want ErrNoImage", err)
	}
	down(t, c)
}

func TestImageEtcd(t *testing.T) {
	c := up(t, Etcd{}, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := func() *clientv3.Client {
		t.Helper()
		cli, err := clientv3.New(clientv3.Config{Endpoints: c.Addrs(""), DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		return cli
	}
	cli := client()
	if _, err := cli.Put(ctx, "k", "before"); err != nil {
		t.Fatal(err)
	}
	cli.Close()
	if err := c.SaveImage(ctx, "one"); err != nil {
		t.Fatalf("SaveImage: %v", err)
	}
	cli = client()
	if _, err := cli.Put(ctx, "k", "after"); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(ctx, "new", "x"); err != nil {
		t.Fatal(err)
	}
	cli.Close()
	if err := c.RestoreImage(ctx, "one"); err != nil {
		t.Fatalf("RestoreImage: %v", err)
	}
	for _, n := range c.Nodes() {
		// A serializable read answers from the member's own data.
		one, err := clientv3.New(clientv3.Config{Endpoints: []string{n.Addr}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		k, err1 := one.Get(ctx, "k", clientv3.WithSerializable())
		x, err2 := one.Get(ctx, "new", clientv3.WithSerializable())
		one.Close()
		if err := errors.Join(err1, err2); err != nil {
			t.Fatalf("%s: %v", n.Name, err)
		}
		if len(k.Kvs) != 1 || string(k.Kvs[0].Value) != "before" || len(x.Kvs) != 0 {
			t.Errorf("%s after the restore: k=%v new=%v, want k=before and no key new", n.Name, k.Kvs, x.Kvs)
		}
	}
	down(t, c)
}

// A node that keeps its data in memory cannot be imaged: the error says so
// before anything stops.
func TestImageNeedsDurableNodes(t *testing.T) {
	c := up(t, Redis{}, Options{})
	pid := c.Nodes()[0].PID
	if err := c.SaveImage(context.Background(), "one"); !errors.Is(err, ErrNoImage) {
		t.Errorf("SaveImage on Redis without persistence: %v, want ErrNoImage", err)
	}
	if c.Nodes()[0].PID != pid {
		t.Error("the node was restarted")
	}
}

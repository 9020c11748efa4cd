package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cluster/clustertest"
	"github.com/dbrig/dbrig/cpuset"
	"github.com/dbrig/dbrig/nodestat"
	"github.com/jackc/pgx/v5"
)

// awkward is a password of the shapes that break quoting: space, both
// quotes, backslash, '@', ':', '#'; "Wq4zPx9Lm" is its distinctive core.
const awkward = `Rd5 "Wq4zPx9Lm" p@ss:w0rd's \ #x`

func TestPostgresPrimaryReplica(t *testing.T) {
	c := clustertest.Up(t, Cluster{Replicas: 1, Settings: map[string]string{"fsync": "off"}, Password: awkward, Databases: []string{"dbrig_extra"}}, cluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The password reached the replica's setup by the environment: no log
	// and no command line shows it.
	for _, n := range c.Nodes() {
		if b, _ := os.ReadFile(n.Log); strings.Contains(string(b), "Wq4zPx9Lm") {
			t.Errorf("log of %s shows the password", n.Name)
		}
		if strings.Contains(strings.Join(clustertest.Cmdline(t, n.PID), " "), "Wq4zPx9Lm") {
			t.Errorf("command line of %s shows the password", n.Name)
		}
		if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", n.PID)); err != nil || strings.Contains(string(env), "Wq4zPx9Lm") {
			t.Errorf("environment of %s shows the password (or is unreadable: %v)", n.Name, err)
		}
	}
	// The extra database exists and belongs to dbrig.
	u, _ := url.Parse(c.Props()["pg.url"])
	u.Path = "/dbrig_extra"
	x, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatalf("connect to dbrig_extra: %v", err)
	}
	if _, err := x.Exec(ctx, "CREATE TABLE mine (k int)"); err != nil {
		t.Errorf("dbrig cannot create a table in dbrig_extra: %v", err)
	}
	x.Close(ctx)
	p, err := pgx.Connect(ctx, c.Props()["pg.url"])
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	if _, err := p.Exec(ctx, "CREATE TABLE t (k text PRIMARY KEY); INSERT INTO t VALUES ('x')"); err != nil {
		t.Fatal(err)
	}
	var replica cluster.Node
	for _, n := range c.Nodes() {
		if n.Role == "replica" {
			replica = n
		}
	}
	r, err := pgx.Connect(ctx, replica.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	// The row arrives by streaming replication.
	var k string
	for err = errors.New("start"); err != nil && ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
		err = r.QueryRow(ctx, "SELECT k FROM t").Scan(&k)
	}
	if err != nil || k != "x" {
		t.Fatalf("replica read: %q %v", k, err)
	}
	if _, err := r.Exec(ctx, "INSERT INTO t VALUES ('y')"); err == nil {
		t.Fatal("replica accepted a write")
	}
	r.Close(ctx)
	p.Close(ctx)

	// nodestat sees the postmaster's whole tree (backends, WAL sender).
	sctx, scancel := context.WithCancel(context.Background())
	defer scancel()
	var samples []nodestat.Sample
	nodestat.Run(sctx, 100*time.Millisecond, []nodestat.Target{{Name: "pg-primary", PID: c.Nodes()[0].PID, Tree: true}}, func(s nodestat.Sample) {
		samples = append(samples, s)
		scancel()
	})
	if len(samples) != 1 || samples[0].Procs < 5 || samples[0].RSS == 0 || samples[0].Err != nil {
		t.Errorf("sample of the primary's tree: %+v", samples)
	}
	t.Logf("primary tree: %d processes, rss %d, fds %d", samples[0].Procs, samples[0].RSS, samples[0].FDs)
	clustertest.Down(t, c)
}

// Nodes started with cluster.Options.CPUs run on those CPUs, and so does every
// process they start later (a PostgreSQL backend per connection), while
// dbrig itself keeps all of its CPUs.
func TestPinnedNodes(t *testing.T) {
	on, err := cpuset.Online()
	if err != nil {
		t.Fatal(err)
	}
	if len(on) < 2 {
		t.Skipf("SKIPPED: one usable CPU (%s): a pinned set would be the whole machine", on)
	}
	set := cpuset.Set{on[len(on)-1]}
	c := clustertest.Up(t, Cluster{Settings: map[string]string{"fsync": "off"}}, cluster.Options{CPUs: set})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.Props()["pg.url"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	pids := []int{c.Nodes()[0].PID, backend}
	for _, pid := range pids {
		got, err := cpuset.Of(pid)
		if err != nil || !slices.Equal(got, set) {
			t.Errorf("process %d runs on CPUs %s (%v), want %s", pid, got, err, set)
		}
	}
	if mine, _ := cpuset.Of(os.Getpid()); !slices.Equal(mine, on) {
		t.Errorf("dbrig runs on CPUs %s after starting pinned nodes, want all of %s", mine, on)
	}
}

// An image of a PostgreSQL primary and its replica, and of three etcd
// members, taken with every node stopped, puts back what was there when it
// was taken: later writes are gone on every node, the nodes serve on the
// same ports with new PIDs, and the replica still follows the primary.
func TestImagePostgres(t *testing.T) {
	c := clustertest.Up(t, Cluster{Replicas: 1, Settings: map[string]string{"fsync": "off"}}, cluster.Options{})
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
	rows := func(n cluster.Node, want string) string {
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
	clustertest.AssertGone(t, before, time.Second)
	// Replication still runs from the restored primary.
	exec("INSERT INTO t VALUES ('d')")
	for _, n := range after {
		if got := rows(n, "a,b,d"); got != "a,b,d" {
			t.Errorf("%s after a write following the restore: %q, want a,b,d", n.Name, got)
		}
	}
	if err := c.RestoreImage(ctx, "two"); !errors.Is(err, cluster.ErrNoImage) {
		t.Errorf("RestoreImage of an image never taken: %v, want ErrNoImage", err)
	}
	if err := c.SaveImage(ctx, "../x"); err == nil {
		t.Error("SaveImage accepted the name ../x")
	}
	if err := c.DropImage("one"); err != nil {
		t.Fatal(err)
	}
	if err := c.RestoreImage(ctx, "one"); !errors.Is(err, cluster.ErrNoImage) {
		t.Errorf("RestoreImage of a dropped image: %v, want ErrNoImage", err)
	}
	clustertest.Down(t, c)
}

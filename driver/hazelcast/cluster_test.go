package hazelcast

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cluster/clustertest"
)

// A fixed cluster name reaches the driver's properties.
func TestHazelcastClusterName(t *testing.T) {
	nodes := []cluster.Node{{Addr: "127.0.0.1:1", DataDir: "/x/hz1"}, {Addr: "127.0.0.1:2", DataDir: "/x/hz2"}}
	if got := (Cluster{ClusterName: "dbrig"}).Props(nodes); got["hazelcast.cluster"] != "dbrig" || got["hazelcast.addrs"] != "127.0.0.1:1,127.0.0.1:2" {
		t.Errorf("props %v", got)
	}
	if got := (Cluster{}).Props(nodes)["hazelcast.cluster"]; got != hazelcastClusterName("/x") {
		t.Errorf("default cluster name %q, want the dir's %q", got, hazelcastClusterName("/x"))
	}
	if !strings.Contains(hazelcastConfig("dbrig", 1, "", ""), "cluster-name: dbrig\n") {
		t.Error("config lacks the cluster name")
	}
}

func TestHazelcastMembers(t *testing.T) {
	c := clustertest.Up(t, Cluster{Members: 3}, cluster.Options{})
	props := c.Props()
	if len(c.Nodes()) != 3 || len(strings.Split(props["hazelcast.addrs"], ",")) != 3 || !strings.HasPrefix(props["hazelcast.cluster"], "dbrig-") {
		t.Fatalf("nodes %v, props %v", c.Nodes(), props)
	}
	// The client-level check again, from outside: a client of the named
	// cluster sees all three members.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := hazelcastClientSees(ctx, props["hazelcast.cluster"], strings.Split(props["hazelcast.addrs"], ","), 3); err != nil {
		t.Fatal(err)
	}
	clustertest.Down(t, c)
}

// A cached jar that matches its .sha1 is used without network; a download
// is checked against Maven Central's SHA-1 and lands atomically.
func TestFetchMavenJar(t *testing.T) {
	const body = "not really a jar"
	sum := fmt.Sprintf("%x", sha1.Sum([]byte(body)))
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		switch {
		case strings.HasSuffix(r.URL.Path, "/bad.jar.sha1"):
			fmt.Fprintln(w, strings.Repeat("0", 40))
		case strings.HasSuffix(r.URL.Path, ".sha1"):
			fmt.Fprintln(w, sum)
		default:
			fmt.Fprint(w, body)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "x.jar")
	ctx := context.Background()
	if fetched, err := fetchMavenJar(ctx, path, srv.URL+"/x.jar"); err != nil || !fetched {
		t.Fatalf("first fetch: %v %v", fetched, err)
	}
	if b, _ := os.ReadFile(path); string(b) != body {
		t.Fatalf("jar %q", b)
	}
	before := hits
	if fetched, err := fetchMavenJar(ctx, path, srv.URL+"/x.jar"); err != nil || fetched || hits != before {
		t.Fatalf("cached: fetched %v, err %v, %d requests", fetched, err, hits-before)
	}
	bad := filepath.Join(dir, "bad.jar")
	_, err := fetchMavenJar(ctx, bad, srv.URL+"/bad.jar")
	var fe *FetchError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "SHA-1") {
		t.Fatalf("bad checksum: %v", err)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a jar failing its checksum was kept: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".download-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

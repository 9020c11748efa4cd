package mongodb

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cluster/clustertest"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/postgres"
	"github.com/dbrig/dbrig/spec"
)

// awkward is a PostgreSQL password of the shapes that break a passfile or
// a URL: ':' and '\' (the passfile's escapes), '@', '/', quotes, a space;
// "Vq8rTz3Nw" is its distinctive core.
const awkward = `Vq8rTz3Nw p@ss:w/0rd\ 'x"`

// The recipe stands FerretDB up on PostgreSQL; the driver works through
// the URL the recipe gives; FerretDB says it is FerretDB; PostgreSQL's
// password shows on no command line, environment or log; Down leaves
// nothing running.
func TestFerretDBOnPostgres(t *testing.T) {
	r := Cluster{PG: postgres.Cluster{Settings: map[string]string{"fsync": "off"}}}.WithPassword(awkward)
	c := clustertest.Up(t, r, cluster.Options{})
	for _, n := range c.Nodes() {
		if b, _ := os.ReadFile(n.Log); strings.Contains(string(b), "Vq8rTz3Nw") {
			t.Errorf("log of %s shows the password", n.Name)
		}
		if strings.Contains(strings.Join(clustertest.Cmdline(t, n.PID), " "), "Vq8rTz3Nw") {
			t.Errorf("command line of %s shows the password", n.Name)
		}
		if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", n.PID)); err != nil || strings.Contains(string(env), "Vq8rTz3Nw") {
			t.Errorf("environment of %s shows the password (or is unreadable: %v)", n.Name, err)
		}
	}
	props := c.Props()
	u := props["mongodb.url"]
	if !strings.HasPrefix(u, "mongodb://127.0.0.1:") || len(props) != 1 {
		t.Fatalf("props %v: want only a loopback mongodb.url", props)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := spec.NewProps()
	p.Set("mongodb.url", u, spec.Source{Flag: "test"})
	db, err := Open(ctx, driver.Config{Props: p})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Insert(ctx, "usertable", "user1", driver.Record{"field0": []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if rec, err := db.Read(ctx, "usertable", "user1", nil); err != nil || string(rec["field0"]) != "v" {
		t.Errorf("read back %q, %v", rec, err)
	}
	v, err := db.(driver.Versioner).ServerVersion(ctx)
	if err != nil || !strings.HasPrefix(v, "FerretDB v"+FerretDBVersion) && !strings.HasPrefix(v, "FerretDB "+FerretDBVersion) {
		t.Errorf("server version %q (%v): want FerretDB %s named", v, err, FerretDBVersion)
	}
	if err := db.Close(); err != nil {
		t.Error(err)
	}
	clustertest.Down(t, c)
}

func TestNewClusterOptions(t *testing.T) {
	refuse := func(key, why string) error { return fmt.Errorf("%s: %s", key, why) }
	for _, key := range []string{"nodes", "replicas", "sentinels"} {
		given := func(k string) bool { return k == key }
		if _, err := newCluster(spec.Cluster{}, given, refuse); err == nil || !strings.HasPrefix(err.Error(), key+":") {
			t.Errorf("%s given: %v, want it refused", key, err)
		}
	}
	r, err := newCluster(spec.Cluster{Binary: "/opt/ferretdb", Config: map[string]string{"fsync": "off"}}, func(k string) bool { return k == "binary" || k == "config" }, refuse)
	if err != nil {
		t.Fatal(err)
	}
	fc := r.(Cluster)
	if fc.Binary != "/opt/ferretdb" || fc.PG.Settings["fsync"] != "off" || r.System() != "ferretdb" {
		t.Errorf("recipe %+v", fc)
	}
	// A PostgreSQL with replicas is refused at layout, before anything starts.
	if _, err := (Cluster{Binary: "/bin/true", PG: postgres.Cluster{Replicas: 1}}).Layout(&cluster.Layout{Dir: t.TempDir()}); err == nil {
		t.Error("replicas laid out")
	}
}

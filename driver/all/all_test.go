package all

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

func TestRegistryOpensEveryDriver(t *testing.T) {
	reg := Registry()
	for _, name := range []string{Null, Default, Sim} {
		if !slices.Contains(reg.Names(), name) {
			t.Errorf("registry lacks %q: %v", name, reg.Names())
		}
	}
	for _, name := range reg.Names() {
		if !availableHere(name) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db, err := reg.Open(ctx, name, driver.Config{Props: spec.NewProps(), Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if got, want := reflect.TypeOf(db), reflect.TypeOf(reg[name].Type); got != want {
				t.Errorf("Open returned a %v, its Driver.Type is a %v", got, want)
			}
			if err := db.Insert(ctx, "usertable", "k", driver.Record{"f": []byte("v")}); err != nil {
				t.Fatalf("insert: %v", err)
			}
		})
	}
}

// Every driver declares its DB's type, so that its capabilities are known
// before anything connects (TestRegistryOpensEveryDriver checks that it is
// the type Open returns where a DB can be opened here).
func TestDriversDeclareTheirType(t *testing.T) {
	for name, d := range Registry() {
		if d.Type == nil {
			t.Errorf("driver %s: no Type", name)
		}
	}
}

// availableHere tells the drivers that need neither a server nor a schema;
// the others are tested in their own packages.
func availableHere(name string) bool {
	return slices.Contains([]string{"null", "pebble", "sim"}, name)
}

func TestRegistryIsFresh(t *testing.T) {
	a := Registry()
	delete(a, "null")
	if _, ok := Registry()["null"]; !ok {
		t.Fatal("changing one registry changed the next")
	}
}

func TestUnknownDriverNamesChoices(t *testing.T) {
	_, err := Registry().Open(context.Background(), "nosuch", driver.Config{})
	if err == nil {
		t.Fatal("no error for an unknown driver")
	}
	for _, name := range []string{"null", "sim", "pebble"} {
		if !slices.Contains(Registry().Names(), name) || !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
}

// Every property a driver reads is declared, so the unknown-key check can
// run before anything connects and `dbrig drivers NAME` lists them all.
// Servers are pointed at a closed port: Open reads its properties, then
// fails fast (or, for embedded ones, succeeds).
func TestDriversDeclareWhatTheyRead(t *testing.T) {
	unreachable := map[string]string{
		"redis.addr": "127.0.0.1:1", "redis.timeout": "200ms",
		"etcd.endpoints": "127.0.0.1:1", "etcd.dialtimeout": "200ms",
		"hazelcast.addrs": "127.0.0.1:1", "hazelcast.dialtimeout": "200ms",
		"mongodb.url": "mongodb://u:secret@127.0.0.1:1/ycsb", "mongodb.timeout": "200ms",
		"hosts": "127.0.0.1:1", "cassandra.connecttimeoutmillis": "200",
		"pg.url":    "postgres://u:secret@127.0.0.1:1/db?connect_timeout=1",
		"mysql.dsn": "u:secret@tcp(127.0.0.1:1)/db?timeout=200ms",
	}
	for name, d := range Registry() {
		t.Run(name, func(t *testing.T) {
			p := spec.NewProps()
			declared := map[string]bool{}
			prefixes := map[string]bool{}
			for _, decl := range d.Props {
				declared[decl.Key] = true
				prefix, _, _ := strings.Cut(decl.Key, ".")
				prefixes[prefix] = true
				if v, ok := unreachable[decl.Key]; ok {
					p.Set(decl.Key, v, spec.Source{Flag: "test"})
				}
				if decl.Doc == "" || decl.Type == "" {
					t.Errorf("%s: declared without a type or doc", decl.Key)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if db, err := d.Open(ctx, driver.Config{Props: p, Dir: t.TempDir()}); err == nil {
				db.Close()
			}
			for _, k := range p.Looked() {
				prefix, _, ok := strings.Cut(k, ".")
				if ok && prefixes[prefix] && !declared[k] {
					t.Errorf("Open reads %s, which %s.Driver() does not declare", k, name)
				}
			}
		})
	}
}

// Every recipe builds with no options given, and the system it names is a
// recipe name too: orchestration finds a running cluster's recipe by its
// nodes' system (experiment's nodesRecipe).
func TestRecipesNameTheirSystem(t *testing.T) {
	reg := Registry()
	never := func(string) bool { return false }
	refuse := func(key, why string) error { return fmt.Errorf("%s: %s", key, why) }
	n := 0
	for _, name := range reg.Names() {
		for recipe, build := range reg[name].Clusters {
			r, err := build(spec.Cluster{}, never, refuse)
			if err != nil {
				t.Errorf("%s recipe %s with no options: %v", name, recipe, err)
				continue
			}
			if _, ok := reg[name].Clusters[r.System()]; !ok {
				t.Errorf("%s recipe %s: System() %q is not one of the driver's recipe names", name, recipe, r.System())
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no recipes registered")
	}
}

// What a local cluster sets is what `dbrig run` reads back from the
// environment: every property a recipe's Props returns (the names `dbrig
// cluster env` exports) is one of the driver's EnvProps, and declared.
func TestRecipePropsAreEnvProps(t *testing.T) {
	reg := Registry()
	never := func(string) bool { return false }
	refuse := func(key, why string) error { return fmt.Errorf("%s: %s", key, why) }
	nodes := []cluster.Node{{Name: "n1", Role: "primary", Addr: "127.0.0.1:1"}, {Name: "n2", Role: "replica", Addr: "127.0.0.1:2"},
		{Name: "n3", Role: "sentinel", Addr: "127.0.0.1:3"}, {Name: "n4", Addr: "127.0.0.1:4"}}
	n := 0
	for _, name := range reg.Names() {
		d := reg[name]
		declared := map[string]bool{}
		for _, p := range d.Props {
			declared[p.Key] = true
		}
		env := map[string]bool{}
		for _, v := range d.Env() {
			env[v.Key] = true
			if !declared[v.Key] {
				t.Errorf("%s: env property %s (%s) is not declared", name, v.Key, v.Name)
			}
			if !strings.HasPrefix(v.Name, "DBRIG_") || strings.ContainsAny(v.Name, ".-") {
				t.Errorf("%s: env variable %q", name, v.Name)
			}
		}
		for recipe, build := range d.Clusters {
			r, err := build(spec.Cluster{Sentinels: 1}, func(k string) bool { return k == "sentinels" }, refuse)
			if err != nil {
				if r, err = build(spec.Cluster{}, never, refuse); err != nil {
					t.Fatalf("%s recipe %s: %v", name, recipe, err)
				}
			}
			if pr, ok := r.(cluster.Passworded); ok {
				r = pr.WithPassword("pw")
			}
			for k := range r.Props(nodes) {
				n++
				if !env[k] {
					t.Errorf("%s recipe %s sets %s, which is not in the driver's EnvProps: dbrig run would not read it back", name, recipe, k)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no recipe set any property")
	}
}

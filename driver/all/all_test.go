package all

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

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
			if err := db.Insert(ctx, "usertable", "k", driver.Record{"f": []byte("v")}); err != nil {
				t.Fatalf("insert: %v", err)
			}
		})
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

package all

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

func TestRegistryOpensEveryDriver(t *testing.T) {
	reg := Registry()
	for _, name := range []string{"null", "pebble", "sim"} {
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

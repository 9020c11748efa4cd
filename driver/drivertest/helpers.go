package drivertest

import (
	"context"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Props returns properties from key, value pairs; pair i comes from
// test.properties line i+1, so a test can check that an error names it.
func Props(kv ...string) *spec.Props {
	p := spec.NewProps()
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], spec.Source{File: "test.properties", Line: i/2 + 1})
	}
	return p
}

// Flags returns properties from "key=value" strings, as -p flags give them.
func Flags(t testing.TB, kv ...string) *spec.Props {
	t.Helper()
	p := spec.NewProps()
	for _, s := range kv {
		if err := p.SetFlag("-p", s); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// Open opens a driver with cfg and fails t when that fails or when the
// driver left any of cfg.Props unread (a property it ignores silently would
// make a run measure something else than asked). The caller closes the DB.
func Open[D driver.DB](t testing.TB, open func(context.Context, driver.Config) (D, error), cfg driver.Config) D {
	t.Helper()
	db, err := open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if err := cfg.Props.Unknown(); err != nil {
		db.Close()
		t.Fatalf("the driver did not read all its properties: %v", err)
	}
	return db
}

// OpenFails checks that opening a driver with cfg fails with an error that
// contains want (a DB opened by mistake is closed), and returns the error.
func OpenFails(t testing.TB, open driver.OpenFunc, cfg driver.Config, want string) error {
	t.Helper()
	db, err := open(context.Background(), cfg)
	if err == nil {
		db.Close()
		t.Fatalf("open succeeded; want an error containing %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("open: error %q, want one containing %q", err, want)
	}
	return err
}

// Rec returns the record of field, value pairs.
func Rec(kv ...string) driver.Record {
	r := driver.Record{}
	for i := 0; i+1 < len(kv); i += 2 {
		r[kv[i]] = []byte(kv[i+1])
	}
	return r
}

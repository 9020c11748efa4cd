package sqltable

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

func newTable(t testing.TB, d Dialect, fields int, prepare PrepareFunc) *Table {
	t.Helper()
	l, err := NewLayout(fields, "field")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := NewTable(d, l, "usertable", prepare)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestSQL(t *testing.T) {
	ctx := context.Background()
	pg := newTable(t, Postgres(), 3, nil)
	my := newTable(t, MySQL(), 3, nil)
	lite := newTable(t, SQLite(), 3, nil)
	must := func(s *Stmt, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s.SQL
	}
	tests := []struct {
		name, got, want string
	}{
		{"pg create", pg.CreateSQL(), `CREATE TABLE IF NOT EXISTS "usertable" ("ycsb_key" VARCHAR(255) COLLATE "C" PRIMARY KEY, "field0" BYTEA, "field1" BYTEA, "field2" BYTEA)`},
		{"mysql create", my.CreateSQL(), "CREATE TABLE IF NOT EXISTS `usertable` (`ycsb_key` VARBINARY(255) PRIMARY KEY, `field0` LONGBLOB, `field1` LONGBLOB, `field2` LONGBLOB)"},
		{"sqlite create", lite.CreateSQL(), "CREATE TABLE IF NOT EXISTS `usertable` (`ycsb_key` VARCHAR(255) PRIMARY KEY, `field0` BLOB, `field1` BLOB, `field2` BLOB)"},
		{"pg read all", must(pg.ReadStmt(ctx, nil)), `SELECT "field0", "field1", "field2" FROM "usertable" WHERE "ycsb_key" = $1`},
		// Fields asked in any order select in table order.
		{"mysql read some", must(my.ReadStmt(ctx, []string{"field2", "field0"})), "SELECT `field0`, `field2` FROM `usertable` WHERE `ycsb_key` = ?"},
		{"pg scan", must(pg.ScanStmt(ctx, []string{"field1"})), `SELECT "field1" FROM "usertable" WHERE "ycsb_key" >= $1 ORDER BY "ycsb_key" LIMIT $2`},
		{"pg update", must(pg.UpdateStmt(ctx, driver.Record{"field2": nil, "field1": nil})), `UPDATE "usertable" SET "field1" = $1, "field2" = $2 WHERE "ycsb_key" = $3`},
		{"mysql insert", must(my.InsertStmt(ctx)), "INSERT INTO `usertable` (`ycsb_key`, `field0`, `field1`, `field2`) VALUES (?, ?, ?, ?)"},
		{"pg insert 2", must(pg.InsertRowsStmt(ctx, 2)), `INSERT INTO "usertable" ("ycsb_key", "field0", "field1", "field2") VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)`},
		{"sqlite delete", must(lite.DeleteStmt(ctx)), "DELETE FROM `usertable` WHERE `ycsb_key` = ?"},
		{"pg check", pg.CheckSQL(), `SELECT "ycsb_key", "field0", "field1", "field2" FROM "usertable" WHERE 1 = 0`},
		{"mysql clear", my.ClearSQL(), "TRUNCATE TABLE `usertable`"},
		{"sqlite clear", lite.ClearSQL(), "DELETE FROM `usertable`"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
}

func TestArgs(t *testing.T) {
	ctx := context.Background()
	pg := newTable(t, Postgres(), 3, nil)
	lite := newTable(t, SQLite(), 3, nil)
	rec := driver.Record{"field2": []byte("c"), "field0": []byte{}}

	args, err := pg.InsertArgs("k", rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Missing field1 is NULL (untyped nil); the empty field0 stays an empty []byte.
	if len(args) != 4 || args[0] != "k" || args[2] != nil || string(args[3].([]byte)) != "c" {
		t.Errorf("pg InsertArgs = %#v", args)
	}
	if b, ok := args[1].([]byte); !ok || b == nil || len(b) != 0 {
		t.Errorf("pg empty value bound as %#v, want []byte{}", args[1])
	}
	args, _ = lite.InsertArgs("k", rec, nil)
	if args[1] != "" {
		t.Errorf("sqlite empty value bound as %#v, want \"\"", args[1])
	}
	if _, err := pg.InsertArgs("k", driver.Record{"field0": nil, "feld1": nil}, nil); err == nil || !strings.Contains(err.Error(), `unknown field "feld1"`) {
		t.Errorf("InsertArgs with a typo: %v", err)
	}

	s, err := pg.UpdateStmt(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	args = pg.UpdateArgs(s, "k", rec, nil)
	if len(args) != 3 || string(args[1].([]byte)) != "c" || args[2] != "k" {
		t.Errorf("UpdateArgs = %#v", args)
	}
}

func TestStatementErrors(t *testing.T) {
	ctx := context.Background()
	tb := newTable(t, Postgres(), 10, nil)
	if _, err := tb.ReadStmt(ctx, []string{"field10"}); err == nil || !strings.Contains(err.Error(), "field0 … field9") {
		t.Errorf("ReadStmt of field10: %v", err)
	}
	if _, err := tb.UpdateStmt(ctx, driver.Record{}); err == nil {
		t.Error("UpdateStmt without fields succeeded")
	}
	if _, err := tb.UpdateStmt(ctx, driver.Record{"x": nil}); err == nil {
		t.Error("UpdateStmt of an unknown field succeeded")
	}
	if got, want := tb.MaxRows(), 65535/11; got != want {
		t.Errorf("MaxRows = %d, want %d", got, want)
	}
	if _, err := tb.InsertRowsStmt(ctx, tb.MaxRows()+1); err == nil {
		t.Error("InsertRowsStmt beyond MaxRows succeeded")
	}
	if _, err := tb.InsertRowsStmt(ctx, 0); err == nil {
		t.Error("InsertRowsStmt of 0 rows succeeded")
	}
	for _, name := range []string{"", "user table", `a"b`, "1abc", strings.Repeat("x", 64)} {
		if _, err := NewTable(Postgres(), tb.Layout(), name, nil); err == nil {
			t.Errorf("NewTable(%q) succeeded", name)
		}
	}
}

func TestCache(t *testing.T) {
	ctx := context.Background()
	calls := map[string]int{}
	fail := true
	tb := newTable(t, MySQL(), 10, func(_ context.Context, k Kind, sql string) (any, error) {
		calls[sql]++
		if fail {
			return nil, errors.New("server down")
		}
		return k, nil
	})
	if _, err := tb.ReadStmt(ctx, nil); err == nil || !strings.Contains(err.Error(), "server down") {
		t.Fatalf("failing prepare: %v", err)
	}
	fail = false
	s1, err := tb.ReadStmt(ctx, nil) // retried, not cached as failed
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := tb.ReadStmt(ctx, []string{"field9", "field0", "field1", "field2", "field3", "field4", "field5", "field6", "field7", "field8"})
	if s1 != s2 {
		t.Error("all fields by name and nil built two statements")
	}
	if calls[s1.SQL] != 2 || s1.Handle != Read {
		t.Errorf("prepare calls = %d, handle %v; want 2 (one failed), Read", calls[s1.SQL], s1.Handle)
	}
	u1, _ := tb.UpdateStmt(ctx, driver.Record{"field1": nil})
	u2, _ := tb.UpdateStmt(ctx, driver.Record{"field2": nil})
	if u1 == u2 || u1.Handle != Update {
		t.Error("different field sets share an update statement")
	}
	if a, b := mustStmt(tb.InsertRowsStmt(ctx, 3)), mustStmt(tb.InsertRowsStmt(ctx, 30)); a == b {
		t.Error("3 and 30 rows share an insert statement")
	}
	n := 0
	tb.Each(func(*Stmt) { n++ })
	if n != 5 {
		t.Errorf("Each saw %d statements, want 5", n)
	}
	// A cached lookup builds no strings.
	fields := []string{"field3"}
	tb.ReadStmt(ctx, fields)
	if a := testing.AllocsPerRun(100, func() { tb.ReadStmt(ctx, fields) }); a != 0 {
		t.Errorf("cached ReadStmt allocates %v times", a)
	}
}

func mustStmt(s *Stmt, err error) *Stmt {
	if err != nil {
		panic(err)
	}
	return s
}

func TestLayoutFromProps(t *testing.T) {
	tests := []struct {
		props   map[string]string
		want    string // first..last field, or error text
		wantErr bool
	}{
		{nil, "field0..field9", false},
		{map[string]string{"fieldcount": "2", "fieldnameprefix": "f_"}, "f_0..f_1", false},
		{map[string]string{"fieldcount": "0"}, "w.properties:3: property fieldcount", true},
		{map[string]string{"fieldcount": "5000"}, "from 1 to 1024", true},
		{map[string]string{"fieldnameprefix": "my field"}, `fieldnameprefix="my field"`, true},
	}
	for _, tc := range tests {
		p := spec.NewProps()
		for k, v := range tc.props {
			p.Set(k, v, spec.Source{File: "w.properties", Line: 3})
		}
		l, err := LayoutFromProps(p)
		switch {
		case tc.wantErr && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: error %v, want one containing %q", tc.props, err, tc.want)
		case !tc.wantErr && err != nil:
			t.Errorf("%v: %v", tc.props, err)
		case !tc.wantErr && l.Fields[0]+".."+l.Fields[len(l.Fields)-1] != tc.want:
			t.Errorf("%v: fields %v, want %s", tc.props, l.Fields, tc.want)
		}
	}
}

func BenchmarkReadStmtCached(b *testing.B) {
	ctx := context.Background()
	tb := newTable(b, Postgres(), 10, nil)
	fields := []string{"field3"}
	for b.Loop() {
		if _, err := tb.ReadStmt(ctx, fields); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUpdateStmtCached(b *testing.B) {
	ctx := context.Background()
	tb := newTable(b, Postgres(), 10, nil)
	rec := driver.Record{"field3": []byte("x")}
	for b.Loop() {
		if _, err := tb.UpdateStmt(ctx, rec); err != nil {
			b.Fatal(err)
		}
	}
}

package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func rawSQLite(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", sqliteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func schemaVersion(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow(`SELECT MAX(version) FROM schema_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMigrateFromEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	openSQLite(t, path).Close()
	db := rawSQLite(t, path)
	if v := schemaVersion(t, db); v != len(migrations) {
		t.Errorf("schema version = %d, want %d", v, len(migrations))
	}
	for _, table := range []string{"runs", "run_tags", "run_props", "phases", "op_stats", "errors", "intervals", "events"} {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s: found %d, %v", table, n, err)
		}
	}
	// Opening again applies nothing and keeps the version.
	openSQLite(t, path).Close()
	var rows int
	if err := db.QueryRow(`SELECT COUNT(*) FROM schema_version`).Scan(&rows); err != nil || rows != len(migrations) {
		t.Errorf("schema_version rows = %d, %v; want %d", rows, err, len(migrations))
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	openSQLite(t, path).Close()
	db := rawSQLite(t, path)
	future := len(migrations) + 1
	if _, err := db.Exec(`INSERT INTO schema_version (version, applied_at) VALUES (?, '2099-01-01T00:00:00.000000Z')`, future); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path)
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open = %v, want ErrSchemaTooNew", err)
	}
	for _, part := range []string{path, fmt.Sprintf("schema version %d", future), "newer dbrig"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not mention %q", err, part)
		}
	}
}

func TestOlderSchemaMigrates(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	db := rawSQLite(t, path)
	if err := migrate(ctx, db, sqliteDialect, migrations); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO runs (name, status, message, started_at, updated_at, tags, command, system, driver,
		server_version, target, workload, load_model, clients, rate, arrival, think_time_s, warmup_s, duration_s, operations,
		seed, hostname, os, kernel, cpu_model, cpu_cores, memory_bytes, dbrig_version, go_version, spec)
		VALUES ('old', 'done', '', '2025-01-01T00:00:00.000000Z', '2025-01-01T00:00:00.000000Z', '', '', 'sim', 'sim',
		'', '', 'w', 'closed', 1, 0, '', 0, 0, 0, 0, 0, '', '', '', '', 0, 0, '', '', '')`); err != nil {
		t.Fatal(err)
	}
	// A later dbrig adds a step: the old store is brought forward, data kept.
	next := append(append([]migration(nil), migrations...), migration{
		version: len(migrations) + 1, name: "notes",
		sql: "-- a new column; comments; and two statements\nALTER TABLE runs ADD COLUMN notes TEXT NOT NULL DEFAULT '';\nCREATE INDEX runs_notes ON runs (notes);",
	})
	if err := migrate(ctx, db, sqliteDialect, next); err != nil {
		t.Fatal(err)
	}
	if v := schemaVersion(t, db); v != len(next) {
		t.Errorf("schema version = %d, want %d", v, len(next))
	}
	var name, notes string
	if err := db.QueryRow(`SELECT name, notes FROM runs`).Scan(&name, &notes); err != nil || name != "old" {
		t.Errorf("old run after migration: %q %q %v", name, notes, err)
	}
	// A failing step leaves the store at its previous version.
	bad := append(append([]migration(nil), next...), migration{version: len(next) + 1, name: "bad", sql: "CREATE TABLE t (x BIGINT); SELEC oops;"})
	err := migrate(ctx, db, sqliteDialect, bad)
	if err == nil || !strings.Contains(err.Error(), "_bad, statement 2") {
		t.Errorf("bad migration = %v, want an error naming the step and statement", err)
	}
	if v := schemaVersion(t, db); v != len(next) {
		t.Errorf("schema version after failed step = %d, want %d", v, len(next))
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 't'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("failed step left table t behind (%d, %v)", n, err)
	}
}

func TestLoadMigrations(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		errPart string
	}{
		{"ok", []string{"migrations/001_a.sql", "migrations/002_b.sql"}, ""},
		{"gap", []string{"migrations/001_a.sql", "migrations/003_c.sql"}, "expected version 2"},
		{"duplicate", []string{"migrations/001_a.sql", "migrations/001_b.sql"}, "expected version 2"},
		{"bad name", []string{"migrations/first.sql"}, "expected a name like"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range tt.files {
				fsys[f] = &fstest.MapFile{Data: []byte("SELECT 1;")}
			}
			ms, err := loadMigrations(fsys)
			if tt.errPart == "" {
				if err != nil || len(ms) != len(tt.files) {
					t.Fatalf("= %d steps, %v", len(ms), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.errPart) {
				t.Errorf("err = %v, want %q", err, tt.errPart)
			}
		})
	}
}

func TestPostgresDDL(t *testing.T) {
	// Without a server, check the PostgreSQL text at least has no SQLite-isms.
	for _, m := range migrations {
		text := postgresDialect.types.Replace(m.sql)
		for _, bad := range []string{"{{", "AUTOINCREMENT", "BLOB"} {
			if strings.Contains(strings.ToUpper(stripComments(text)), bad) {
				t.Errorf("migration %d for postgres contains %q", m.version, bad)
			}
		}
	}
}

func stripComments(s string) string { return strings.Join(splitSQL(s), ";") }

package results

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// migration is one numbered step of the schema. Steps are only ever added:
// a released step is never edited, so every store can be brought forward.
type migration struct {
	version int
	name    string
	sql     string
}

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations are the steps in migrations/NNN_name.sql, in order.
var migrations = mustLoadMigrations(migrationFiles)

// ErrSchemaTooNew is wrapped by Open for a store written by a newer dbrig.
var ErrSchemaTooNew = errors.New("results store schema is newer than this dbrig")

func mustLoadMigrations(fsys fs.FS) []migration {
	ms, err := loadMigrations(fsys)
	if err != nil {
		panic(err) // the embedded files are part of the binary: a bug, not input
	}
	return ms
}

func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, n := range names {
		base := path.Base(n)
		num, rest, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: expected a name like 001_what.sql", n)
		}
		text, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: strings.TrimSuffix(rest, ".sql"), sql: string(text)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %03d_%s: expected version %d (no gaps, no duplicates)", m.version, m.name, i+1)
		}
	}
	return ms, nil
}

// migrate applies the steps the database has not seen yet, all in one
// transaction, and refuses a database that has steps this binary does not know.
func migrate(ctx context.Context, db *sql.DB, d dialect, steps []migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	if d.lockMigrations != "" {
		if _, err := tx.ExecContext(ctx, d.lockMigrations); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
	}
	// schema_version is created here rather than in step 1 so that the
	// current version can be read before any step runs.
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    BIGINT NOT NULL PRIMARY KEY,
		applied_at TEXT   NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
		return fmt.Errorf("migrate: read schema version: %w", err)
	}
	if current > len(steps) {
		return fmt.Errorf("%w: it has schema version %d, this dbrig knows versions up to %d; use a newer dbrig or another store",
			ErrSchemaTooNew, current, len(steps))
	}
	if current == len(steps) {
		return nil // nothing to write: let the read transaction end
	}
	for _, m := range steps[current:] {
		for i, stmt := range splitSQL(d.types.Replace(m.sql)) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migration %03d_%s, statement %d: %w", m.version, m.name, i+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, d.rebind(`INSERT INTO schema_version (version, applied_at) VALUES (?, ?)`),
			m.version, fmtTime(time.Now())); err != nil {
			return fmt.Errorf("migration %03d_%s: %w", m.version, m.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}

// splitSQL cuts a migration into statements at semicolons, after removing
// "--" comments. Migrations contain no string literals with ';' or "--".
func splitSQL(text string) []string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	var out []string
	for _, stmt := range strings.Split(b.String(), ";") {
		if stmt = strings.TrimSpace(stmt); stmt != "" {
			out = append(out, stmt)
		}
	}
	return out
}

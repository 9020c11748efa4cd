// Package results stores runs — their context, phase summaries, per-second
// intervals, errors and events — in an SQL database: SQLite by default (pure
// Go, no cgo), or PostgreSQL for a shared store. The schema is part of dbrig's
// user interface; it is documented column by column in migrations/*.sql and
// example queries are in queries.md.
package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers database/sql driver "pgx"
	_ "modernc.org/sqlite"             // registers database/sql driver "sqlite"

	"github.com/dbrig/dbrig/spec"
)

// ErrNoRun is wrapped by the errors for a run id that is not in the store.
var ErrNoRun = errors.New("no such run")

// Store is an open results database. It is safe for concurrent use, and
// several Stores (also in several processes) may write to one database.
type Store struct {
	db   *sql.DB
	d    dialect
	name string // the database as given, redacted, for messages

	mu     sync.Mutex
	starts map[int64]time.Time // run id → start, for the t_ms of intervals and events
}

// busyTimeout is how long an SQLite writer waits for another one (another
// dbrig process writing its own run) before failing.
const busyTimeout = 10 * time.Second

// DefaultPath is where the SQLite store lives when none is given:
// $XDG_DATA_HOME/dbrig/results.db, else ~/.local/share/dbrig/results.db.
func DefaultPath() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "dbrig", "results.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("results store: no default location ($XDG_DATA_HOME and $HOME unset): %w", err)
	}
	return filepath.Join(home, ".local", "share", "dbrig", "results.db"), nil
}

// Open opens the store named by dsn and brings its schema up to date:
//
//	""                          the SQLite file DefaultPath (created with its directory)
//	PATH, sqlite://PATH, file:… an SQLite file (sqlite:///abs/path for an absolute path)
//	postgres://…, postgresql://… a PostgreSQL database (pgx connection string)
//
// A store whose schema is newer than this dbrig is refused with an error.
func Open(ctx context.Context, dsn string) (*Store, error) {
	d, driverDSN, name, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open(d.driver, driverDSN)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", name, err)
	}
	if d.driver == sqliteDialect.driver {
		// Writers serialise on SQLite's one write lock anyway; a small pool
		// keeps readers concurrent without piling up waiting writers.
		db.SetMaxOpenConns(4)
	}
	s := &Store{db: db, d: d, name: name, starts: map[int64]time.Time{}}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("results store %s: %w", name, err)
	}
	if err := migrate(ctx, db, d, migrations); err != nil {
		db.Close()
		return nil, fmt.Errorf("results store %s: %w", name, err)
	}
	return s, nil
}

// parseDSN picks the dialect and returns the DSN for its database/sql driver
// and a redacted name for messages.
func parseDSN(dsn string) (d dialect, driverDSN, name string, err error) {
	lower := strings.ToLower(dsn)
	switch {
	case strings.HasPrefix(lower, "postgres://"), strings.HasPrefix(lower, "postgresql://"):
		return postgresDialect, dsn, spec.Redact(dsn), nil
	case dsn == "":
		path, err := DefaultPath()
		if err != nil {
			return d, "", "", err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return d, "", "", fmt.Errorf("results store: %w", err)
		}
		return sqlitePath(path)
	case strings.HasPrefix(lower, "sqlite://"):
		path := dsn[len("sqlite://"):]
		if path == "" {
			return d, "", "", fmt.Errorf("results store %q: expected a file path after sqlite://", dsn)
		}
		return sqlitePath(path)
	case strings.HasPrefix(lower, "file:"):
		return sqliteDialect, sqliteDSN(dsn), dsn, nil
	case strings.Contains(dsn, "://"):
		return d, "", "", fmt.Errorf("results store %q: unknown scheme (expected a file path, sqlite://PATH, file:PATH or postgres://…)", spec.Redact(dsn))
	default:
		return sqlitePath(dsn)
	}
}

func sqlitePath(path string) (dialect, string, string, error) {
	if strings.Contains(path, "?") {
		return dialect{}, "", "", fmt.Errorf("results store %q: a file path cannot contain '?' (use a file: URI for options)", path)
	}
	return sqliteDialect, sqliteDSN(path), path, nil
}

// sqliteDSN adds the connection settings every SQLite connection needs:
// WAL so readers never block the writer, a busy timeout so two dbrig
// processes can write to one file, foreign keys for ON DELETE CASCADE, and
// transactions that take the write lock at BEGIN (a deferred transaction that
// upgrades to writing fails at once with SQLITE_BUSY instead of waiting).
//
// A plain path is passed without a "file:" prefix, so that SQLite does not
// read '%' or '#' in it as URI syntax; the driver cuts the query off itself.
func sqliteDSN(pathOrURI string) string {
	params := url.Values{}
	params.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	params.Add("_pragma", "journal_mode(WAL)")
	params.Add("_pragma", "synchronous(NORMAL)") // WAL: durable across process crashes, fast commits
	params.Add("_pragma", "foreign_keys(1)")
	params.Set("_txlock", "immediate")
	sep := "?"
	if strings.Contains(pathOrURI, "?") {
		sep = "&"
	}
	return pathOrURI + sep + params.Encode()
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Dialect names the database behind the store: "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.d.name }

// exec, query and queryRow run SQL written with "?" placeholders.
func (s *Store) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.d.rebind(q), args...)
}

func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return s.db.QueryContext(ctx, s.d.rebind(q), args...)
}

func (s *Store) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return s.db.QueryRowContext(ctx, s.d.rebind(q), args...)
}

// tx runs fn in a transaction, committing when fn returns nil.
func (s *Store) tx(ctx context.Context, fn func(t *txn) error) error {
	sqlTx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(&txn{tx: sqlTx, d: s.d}); err != nil {
		sqlTx.Rollback()
		return err
	}
	return sqlTx.Commit()
}

// txn is a transaction that takes "?" placeholders.
type txn struct {
	tx *sql.Tx
	d  dialect
}

func (t *txn) exec(ctx context.Context, q string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, t.d.rebind(q), args...)
	return err
}

func (t *txn) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(ctx, t.d.rebind(q), args...)
}

func (t *txn) prepare(ctx context.Context, q string) (*sql.Stmt, error) {
	return t.tx.PrepareContext(ctx, t.d.rebind(q))
}

// timeFormat is how times are stored: UTC, fixed width, so that TEXT order is
// time order and both SQLite and PostgreSQL parse it.
const timeFormat = "2006-01-02T15:04:05.000000Z"

func fmtTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeFormat, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t, nil
}

// nullTime parses a nullable time column; NULL is the zero time.
func nullTime(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return parseTime(s.String)
}

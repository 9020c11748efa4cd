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
	"os"
	"path/filepath"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers database/sql driver "pgx"
	"modernc.org/sqlite"               // registers database/sql driver "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
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

// Open opens the store at address dsn and brings its schema up to date:
//
//	""                           the SQLite file DefaultPath (created with its directory)
//	PATH, sqlite://PATH, file:…  an SQLite file (sqlite:///abs/path for an absolute path)
//	postgres://…, postgresql://… a PostgreSQL database (pgx connection string)
//	host=… user=… dbname=…       a PostgreSQL database (libpq keyword/value string)
//
// A store whose schema is newer than this dbrig is refused with an error.
func Open(ctx context.Context, dsn string) (*Store, error) {
	addr, err := parseStoreAddr(dsn)
	if err != nil {
		return nil, err
	}
	return open(ctx, addr)
}

func open(ctx context.Context, addr storeAddr) (*Store, error) {
	d, name := addr.dialect, addr.name
	if addr.file != "" {
		if err := checkStoreFile(addr.file); err != nil {
			return nil, err
		}
	}
	if addr.isDefault {
		if err := os.MkdirAll(filepath.Dir(addr.file), 0o755); err != nil {
			return nil, fmt.Errorf("results store: %w", err)
		}
	}
	db, err := sql.Open(d.driver, addr.dsn)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", name, err)
	}
	if d.driver == sqliteDialect.driver {
		// Writers serialise on SQLite's one write lock anyway; a small pool
		// keeps readers concurrent without piling up waiting writers.
		db.SetMaxOpenConns(4)
	}
	s := &Store{db: db, d: d, name: name, starts: map[int64]time.Time{}}
	if err := ping(ctx, db, d); err != nil {
		db.Close()
		return nil, fmt.Errorf("results store %s: %w", name, err)
	}
	if err := migrate(ctx, db, d, migrations); err != nil {
		db.Close()
		return nil, fmt.Errorf("results store %s: %w", name, err)
	}
	// Best effort: a read-only store still opens for reading.
	mctx, cancel := context.WithTimeout(ctx, sweepTimeout)
	s.markAbandoned(mctx)
	cancel()
	return s, nil
}

// ping opens the first connection. On a fresh SQLite file, the journal_mode
// pragma of every new connection writes page 1; when two connections do
// that at once (two runs starting together), SQLite answers one of them
// SQLITE_BUSY at once instead of waiting, since both already hold a read
// lock and waiting could deadlock. Once the file is in WAL mode the pragma
// writes nothing, so trying again for up to busyTimeout succeeds.
func ping(ctx context.Context, db *sql.DB, d dialect) error {
	deadline := time.Now().Add(busyTimeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := db.PingContext(ctx)
		if err == nil || d.driver != sqliteDialect.driver || !isBusy(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// isBusy tells an SQLite "database is locked" (any SQLITE_BUSY_* code).
func isBusy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
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

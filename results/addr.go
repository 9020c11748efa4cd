package results

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/dbrig/dbrig/spec"
)

// storeAddr is a store address (--store) taken apart: the one place that
// reads it, for Open and OpenExisting.
type storeAddr struct {
	dialect dialect
	dsn     string // for the dialect's database/sql driver
	name    string // for messages and Store.Name: never holds a password
	// file is the SQLite file behind a plain path, sqlite://PATH or the
	// default store; "" for a file: URI (its options may not name a file)
	// and for PostgreSQL.
	file      string
	isDefault bool // file is DefaultPath: Open creates its directory
}

// parseStoreAddr reads a store address:
//
//	""                           the SQLite file DefaultPath
//	PATH, sqlite://PATH          an SQLite file (sqlite:///abs/path for an absolute path)
//	file:…                       an SQLite URI, passed on with its options
//	postgres://…, postgresql://… a PostgreSQL URL (pgx connection string)
//	host=… user=… dbname=…       a PostgreSQL keyword/value (libpq) string
//
// It has no side effects: Open creates the default store's directory.
func parseStoreAddr(addr string) (storeAddr, error) {
	lower := strings.ToLower(addr)
	switch {
	case spec.IsPostgresURL(addr):
		return storeAddr{dialect: postgresDialect, dsn: addr, name: spec.RedactURL(addr)}, nil
	case spec.IsConnInfo(addr):
		name := spec.RedactConnInfo(addr)
		if name == spec.Redacted {
			return storeAddr{}, fmt.Errorf("results store %s: expected keyword=value pairs (values with spaces in single quotes)", name)
		}
		return storeAddr{dialect: postgresDialect, dsn: addr, name: name}, nil
	case addr == "":
		path, err := DefaultPath()
		if err != nil {
			return storeAddr{}, err
		}
		a, err := sqliteFileAddr(path)
		a.isDefault = true
		return a, err
	case strings.HasPrefix(lower, "sqlite://"):
		path := addr[len("sqlite://"):]
		if path == "" {
			return storeAddr{}, fmt.Errorf("results store %q: expected a file path after sqlite://", addr)
		}
		return sqliteFileAddr(path)
	case strings.HasPrefix(lower, "file:"):
		return storeAddr{dialect: sqliteDialect, dsn: sqliteDSN(addr), name: addr}, nil
	case strings.Contains(addr, "://"):
		return storeAddr{}, fmt.Errorf("results store %q: unknown scheme (expected a file path, sqlite://PATH, file:PATH, postgres://… or host=… dbname=…)", spec.RedactURL(addr))
	default:
		return sqliteFileAddr(addr)
	}
}

func sqliteFileAddr(path string) (storeAddr, error) {
	if strings.Contains(path, "?") {
		return storeAddr{}, fmt.Errorf("results store %q: a file path cannot contain '?' (use a file: URI for options)", path)
	}
	return storeAddr{dialect: sqliteDialect, dsn: sqliteDSN(path), name: path, file: path}, nil
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

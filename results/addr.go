package results

import (
	"fmt"
	"net/url"
	"strings"
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
	case strings.HasPrefix(lower, "postgres://"), strings.HasPrefix(lower, "postgresql://"):
		return storeAddr{dialect: postgresDialect, dsn: addr, name: redactURL(addr)}, nil
	case isConninfo(addr):
		name, err := redactConninfo(addr)
		if err != nil {
			return storeAddr{}, fmt.Errorf("results store %s: %w", name, err)
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
		return storeAddr{}, fmt.Errorf("results store %q: unknown scheme (expected a file path, sqlite://PATH, file:PATH, postgres://… or host=… dbname=…)", redactURL(addr))
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

// redactURL is a URL without its password, in the user info or in the query
// (?password=…). A URL that does not parse (an unescaped space in the
// password, say) keeps only what follows its last '@', without the query.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		scheme, rest, _ := strings.Cut(raw, "://")
		if i := strings.LastIndex(rest, "@"); i >= 0 {
			rest = "REDACTED@" + rest[i+1:]
		}
		rest, _, _ = strings.Cut(rest, "?")
		return scheme + "://" + rest
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "REDACTED")
	}
	if q := u.Query(); len(q) > 0 {
		secret := false
		for k := range q {
			if isSecretKey(k) {
				q[k] = []string{"REDACTED"}
				secret = true
			}
		}
		if secret {
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// conninfoKeys are libpq's connection keywords; a store address that starts
// with one of them and '=' is a PostgreSQL keyword/value string, not a file.
var conninfoKeys = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true,
	"password": true, "passfile": true, "connect_timeout": true, "options": true,
	"application_name": true, "sslmode": true, "sslcert": true, "sslkey": true,
	"sslrootcert": true, "sslpassword": true, "target_session_attrs": true,
	"service": true, "client_encoding": true,
}

func isConninfo(s string) bool {
	key, _, ok := strings.Cut(strings.TrimLeft(s, " \t\n"), "=")
	return ok && conninfoKeys[strings.TrimSpace(key)]
}

// redactConninfo rewrites a keyword/value string with the value of every
// secret keyword replaced. It parses the string as libpq does (values in
// single quotes with backslash escapes), because a password may hold spaces
// and quotes that a pattern would cut short. On a syntax error it returns
// what it could read.
func redactConninfo(s string) (string, error) {
	var out []string
	for rest := strings.TrimSpace(s); rest != ""; rest = strings.TrimLeft(rest, " \t\n\r") {
		key, after, ok := strings.Cut(rest, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t\n\r'\\") {
			return strings.Join(out, " "), fmt.Errorf("expected keyword=value at %q", strings.Join(out, " ")+" …")
		}
		value, tail, err := conninfoValue(strings.TrimLeft(after, " \t\n\r"))
		if err != nil {
			return strings.Join(append(out, key+"=…"), " "), err
		}
		if isSecretKey(key) {
			value = "REDACTED"
		}
		out = append(out, key+"="+quoteConninfo(value))
		rest = tail
	}
	return strings.Join(out, " "), nil
}

// conninfoValue reads one value at the start of s: quoted, or up to the next
// white space; backslash escapes the next character in both.
func conninfoValue(s string) (value, rest string, err error) {
	var b strings.Builder
	quoted := strings.HasPrefix(s, "'")
	if quoted {
		s = s[1:]
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case quoted && c == '\'':
			return b.String(), s[i+1:], nil
		case !quoted && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return b.String(), s[i:], nil
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		return "", "", fmt.Errorf("unterminated quoted value")
	}
	return b.String(), "", nil
}

func quoteConninfo(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n\r'\\") {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

package spec

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// Decl declares a property that a reader (a driver, a workload) takes: its
// key, type, default and meaning, and how its value hides a secret. One
// declaration feeds the unknown-key check (before anything connects),
// `dbrig drivers NAME`, and redaction wherever the value is stored or shown.
type Decl struct {
	Key     string
	Type    string // string, int, float, bool, duration, list, url, dsn, path
	Default string // "" when none
	Doc     string
	Secret  Redactor // nil: the value is no secret
}

// Redactor returns a value with its secret removed: each secret-bearing
// property names the one that understands its format.
type Redactor func(value string) string

// Redacted is what a removed secret is replaced with.
const Redacted = "REDACTED"

// RedactWhole hides the whole value (a password).
func RedactWhole(v string) string {
	if v == "" {
		return ""
	}
	return Redacted
}

// RedactURL hides the password of a URL's user information and any secret
// query parameter (password=, sslpassword=…). It does not trust a URL
// parser to find the password: one written raw may hold '@', '/', '?' or
// '#', which end the authority for a parser but not for the user. So the
// user information is everything up to the last '@', and all of it after
// the first ':' is the password, as libpq reads a connection URI.
func RedactURL(v string) string {
	scheme, rest, ok := strings.Cut(v, "://")
	if !ok {
		return RedactWhole(v) // not a URL at all: show nothing of it
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		if user, _, hasPW := strings.Cut(rest[:at], ":"); hasPW {
			rest = user + ":" + Redacted + rest[at:]
		}
	}
	base, query, hasQuery := strings.Cut(rest, "?")
	if !hasQuery {
		return scheme + "://" + base
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return scheme + "://" + base // a query we cannot read may hold a secret: drop it
	}
	secret := false
	for k := range q {
		if secretKey.MatchString(k) {
			q.Set(k, Redacted)
			secret = true
		}
	}
	if secret {
		query = q.Encode()
	}
	return scheme + "://" + base + "?" + query
}

// RedactConnInfo hides the password of a PostgreSQL connection string in
// either of libpq's forms: a URL, or key = value pairs whose values may be
// single-quoted with \' and \\ escapes. The key/value form is parsed and
// rebuilt, so a password with spaces or quotes cannot leak past a pattern.
func RedactConnInfo(v string) string {
	if strings.Contains(v, "://") {
		return RedactURL(v)
	}
	pairs, ok := parseConnInfo(v)
	if !ok {
		return RedactWhole(v) // not parseable: show nothing of it
	}
	var b strings.Builder
	for i, kv := range pairs {
		if i > 0 {
			b.WriteByte(' ')
		}
		val := kv[1]
		if secretKey.MatchString(kv[0]) { // password, sslpassword, …
			val = Redacted
		}
		b.WriteString(kv[0] + "=" + quoteConnInfo(val))
	}
	return b.String()
}

// IsPostgresURL tells whether s is a PostgreSQL URL: postgres://… or
// postgresql://…, the scheme in any case.
func IsPostgresURL(s string) bool {
	lower := strings.ToLower(s)
	return strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://")
}

// IsConnInfo tells whether s is meant as libpq's keyword/value form: it
// starts with one of libpq's connection keywords and '=' (whether the rest
// parses, RedactConnInfo tells).
func IsConnInfo(s string) bool {
	key, _, ok := strings.Cut(strings.TrimLeft(s, " \t\n"), "=")
	if !ok {
		return false
	}
	switch strings.TrimSpace(key) {
	case "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "connect_timeout", "options",
		"application_name", "sslmode", "sslcert", "sslkey", "sslrootcert", "sslpassword", "target_session_attrs",
		"service", "client_encoding":
		return true
	}
	return false
}

// parseConnInfo splits libpq's key = value form.
func parseConnInfo(s string) ([][2]string, bool) {
	var out [][2]string
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	for {
		skip()
		if i >= len(s) {
			return out, true
		}
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		key := s[start:i]
		skip()
		if key == "" || i >= len(s) || s[i] != '=' {
			return nil, false
		}
		i++
		skip()
		var val strings.Builder
		if i < len(s) && s[i] == '\'' {
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				if c == '\\' && i+1 < len(s) {
					val.WriteByte(s[i+1])
					i += 2
					continue
				}
				i++
				if c == '\'' {
					closed = true
					break
				}
				val.WriteByte(c)
			}
			if !closed {
				return nil, false
			}
		} else {
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
				i++
			}
		}
		out = append(out, [2]string{key, val.String()})
	}
}

func quoteConnInfo(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n\r'\\") {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// Declare registers what a reader takes: the keys become known (so Unknown
// can run before anything connects) and secret ones are redacted by their
// own Redactor wherever Props shows them.
func (p *Props) Declare(decls ...Decl) {
	for _, d := range decls {
		p.known[d.Key] = true
		if d.Secret != nil {
			p.secret[d.Key] = d.Secret
		}
	}
}

// Looked returns the keys readers looked up, declared or not: a test can
// check that a reader declares everything it reads.
func (p *Props) Looked() []string {
	var out []string
	for k := range p.looked {
		out = append(out, k)
	}
	return out
}

// Shown returns key's value fit to store or print: redacted by its declared
// Redactor, else by the name and pattern rules of RedactProp.
func (p *Props) Shown(key string) string { return p.ShowValue(key, p.vals[key].value) }

// ShowValue redacts value as key's value would be (for a command line that
// set key to a value later overridden).
func (p *Props) ShowValue(key, value string) string {
	if r := p.secret[key]; r != nil {
		return r(value)
	}
	return RedactProp(key, value)
}

// Text renders every property, redacted, one "key=value  # source" line
// each in key order: what a run stores as its spec, built from the parsed
// values and never copied from the files, so no file syntax (continuation
// lines, escapes, a space as separator) can carry a secret past redaction.
func (p *Props) Text() string {
	keys := make([]string, 0, len(p.vals))
	for k := range p.vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s  # %s\n", k, p.Shown(k), p.vals[k].src)
	}
	return b.String()
}

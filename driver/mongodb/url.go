package mongodb

import (
	"net"
	"net/url"
	"strings"
	"unicode"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/dbrig/dbrig/spec"
)

// defaultURL is YCSB's mongodb binding's default.
const defaultURL = "mongodb://localhost:27017/ycsb?w=1"

// target is mongodb.url as checked before anything connects.
type target struct {
	url      string // as given
	database string // from the path; "ycsb" when it has none
	password string // as written in the URL, for scrubbing messages
	poolSet  bool   // maxPoolSize is in the URL
}

// parseURL checks mongodb.url: a mongodb:// or mongodb+srv:// URL with at
// least one host, options the driver accepts (write concern, read
// preference, ...). A bad one is a *spec.PropError whose value and message
// show no password.
func parseURL(p *spec.Props) (target, error) {
	raw, src, ok := p.Lookup("mongodb.url")
	if !ok {
		raw = defaultURL
	}
	raw = strings.TrimSpace(raw)
	t := target{url: raw, password: urlPassword(raw)}
	bad := func(want string, err error) error {
		if err != nil {
			want += " (" + scrub(err.Error(), t.password) + ")"
		}
		return &spec.PropError{Key: "mongodb.url", Value: spec.RedactURL(raw), Src: src, Want: want}
	}
	const want = "a URL such as mongodb://user:secret@127.0.0.1:27017/ycsb?w=1"
	scheme, rest, found := strings.Cut(raw, "://")
	if !found || scheme != "mongodb" && scheme != "mongodb+srv" {
		return t, bad(want+": the scheme mongodb:// or mongodb+srv://", nil)
	}
	if hostsOf(rest) == "" {
		return t, bad(want+" naming at least one host", nil)
	}
	if scheme == "mongodb+srv" {
		// Parsing an SRV URL looks its hosts up in DNS: that waits for Open.
		t.database = "ycsb"
		if db := databaseOf(rest); db != "" {
			t.database = db
		}
		return t, nil
	}
	// The driver's own checks, as Connect will make them (write concern,
	// read preference, pool sizes, ...).
	if err := options.Client().ApplyURI(raw).Validate(); err != nil {
		return t, bad(want, err)
	}
	cs, err := connstring.Parse(raw)
	if err != nil {
		return t, bad(want, err)
	}
	for _, h := range cs.Hosts {
		if host, _, err := net.SplitHostPort(h); err == nil && host == "" || h == "" {
			return t, bad(want+" naming at least one host", nil)
		}
	}
	t.database, t.poolSet = cs.Database, cs.MaxPoolSizeSet
	if t.database == "" {
		t.database = "ycsb"
	}
	return t, nil
}

// hostsOf is the host list of a URL's rest after "://": after the user
// information (up to the last '@' before the path), up to the path or query.
func hostsOf(rest string) string {
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	// The password may hold '/' or '?' written raw: the authority ends at
	// the first '/' or '?' after the last '@'.
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		after := strings.IndexAny(rest[at+1:], "/?")
		if after < 0 {
			after = len(rest) - at - 1
		}
		return strings.Trim(rest[at+1:at+1+after], ",")
	}
	return strings.Trim(rest[:end], ",")
}

func databaseOf(rest string) string {
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = rest[at+1:]
	}
	_, path, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	path, _, _ = strings.Cut(path, "?")
	if db, err := url.PathUnescape(path); err == nil {
		return db
	}
	return path
}

// urlPassword is the password of a URL's user information as written (what
// follows the first ':' up to the last '@' of the authority), as
// spec.RedactURL finds it; "" when there is none.
func urlPassword(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return ""
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, pw, _ := strings.Cut(rest[:at], ":")
	return pw
}

// scrub removes a password from a message of the client library: whole, as
// unescaped, and every run of four or more of its letters and digits (a
// parser may quote a piece of a URL it could not split).
func scrub(msg, pw string) string {
	if pw == "" {
		return msg
	}
	forms := []string{pw}
	if u, err := url.PathUnescape(pw); err == nil && u != pw {
		forms = append(forms, u)
	}
	for _, f := range forms {
		msg = strings.ReplaceAll(msg, f, spec.Redacted)
		for _, run := range strings.FieldsFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if len([]rune(run)) >= 4 {
				msg = strings.ReplaceAll(msg, run, spec.Redacted)
			}
		}
	}
	return msg
}

// scrubErr is err with its message scrubbed of pw; errors.Is and As still
// see the original.
func scrubErr(err error, pw string) error {
	if err == nil || pw == "" {
		return err
	}
	msg := scrub(err.Error(), pw)
	if msg == err.Error() {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (s *scrubbed) Error() string { return s.msg }
func (s *scrubbed) Unwrap() error { return s.err }

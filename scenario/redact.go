package scenario

import (
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/spec"
)

// A failed command fault's event carries the end of the command's output,
// which may echo a secret (a password on the command line of a database's
// CLI, a connection URL). Fault events are redacted before they are stored
// or shown: every secret the run's properties hold (a declared secret's
// value, the password of a URL or DSN) is replaced, and any URL or DSN
// with a password left is redacted as spec redacts one.

// dsnSecret is a password=VALUE in a libpq-style DSN.
var dsnSecret = regexp.MustCompile(`(?i)password=([^\s&;]+)`)

// secretsOf are the secret strings among the properties' values, longest
// first (so a secret containing another is replaced whole).
func secretsOf(p *spec.Props) []string {
	if p == nil {
		return nil
	}
	seen := map[string]bool{}
	add := func(s string) {
		if len(s) >= 3 { // shorter would redact ordinary words
			seen[s] = true
		}
	}
	for k := range p.Map() {
		raw, _, ok := p.Lookup(k)
		shown := p.Shown(k)
		if !ok || raw == "" || shown == raw {
			continue
		}
		add(raw)
		// What the key's redactor took out: raw = before + secret + after
		// where it shows before + REDACTED + after.
		if before, after, one := strings.Cut(shown, "REDACTED"); one && !strings.Contains(after, "REDACTED") &&
			strings.HasPrefix(raw, before) && strings.HasSuffix(raw[len(before):], after) {
			add(raw[len(before) : len(raw)-len(after)])
		}
		if u, err := url.Parse(raw); err == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok {
				add(pw)
				add(url.QueryEscape(pw))
			}
		}
		for _, m := range dsnSecret.FindAllStringSubmatch(raw, -1) {
			add(m[1])
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) || len(out[i]) == len(out[j]) && out[i] < out[j] })
	return out
}

// redactWith removes the secrets from s, then any password a URL or DSN
// in it still shows.
func redactWith(s string, secrets []string) string {
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, "REDACTED")
	}
	fields := strings.Fields(s)
	for _, f := range fields {
		if r := spec.Redact(f); r != f {
			s = strings.Replace(s, f, r, 1)
		}
	}
	return s
}

// Redacting passes fault events on to emit with their detail and outcome
// redacted: no secret of the run's properties p is stored or shown.
func Redacting(p *spec.Props, emit func(run.Event)) func(run.Event) {
	secrets := secretsOf(p)
	return func(ev run.Event) {
		ev.Detail, ev.Outcome = redactWith(ev.Detail, secrets), redactWith(ev.Outcome, secrets)
		emit(ev)
	}
}

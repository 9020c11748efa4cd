// Package spec turns what the user wrote (YCSB property files, -p flags,
// command-line flags) into typed, validated configuration. Every value keeps
// where it came from, so an error can name the file and line.
package spec

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Source is where a property was set: a file and line, or a flag.
type Source struct {
	File string // file path, or "" for a command-line value
	Line int
	Flag string // e.g. "-p" or "--threads" when set on the command line
	Env  string // the environment variable it was read from (DBRIG_ETCD_ENDPOINTS)
}

func (s Source) String() string {
	switch {
	case s.File != "":
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	case s.Env != "":
		return "environment " + s.Env
	case s.Flag != "":
		return "flag " + s.Flag
	default:
		return "default"
	}
}

// PropError is a property with a value that is not what was expected, or
// a required one that is missing.
type PropError struct {
	Key, Value string
	Src        Source
	Want       string // what was expected, e.g. "an integer >= 0"
	Missing    bool   // the property is required and was not set
}

func (e *PropError) Error() string {
	if e.Missing {
		return fmt.Sprintf("property %s is required: expected %s", e.Key, e.Want)
	}
	// Each part that may hold the value is redacted on its own, never the
	// whole message: a one-letter password ("0:c@") replaced everywhere took
	// the property's name with it ("tpREDACTEDREDACTED.mix", found by FuzzMix).
	value := RedactSecretsOf(e.Key, e.Value, fmt.Sprintf("%q", RedactProp(e.Key, e.Value)))
	return fmt.Sprintf("%s: property %s=%s: expected %s", e.Src, e.Key, value, RedactSecretsOf(e.Key, e.Value, e.Want))
}

// Missing returns the error for a required property that was not set.
func Missing(key, want string) error { return &PropError{Key: key, Want: want, Missing: true} }

type entry struct {
	value string
	src   Source
}

// Props is a set of YCSB-style properties. Readers mark the keys they look up
// as known, so that Unknown can report typos after every consumer has read its
// part. Props is not safe for concurrent use; read it while setting a run up.
type Props struct {
	vals   map[string]entry
	known  map[string]bool
	looked map[string]bool     // looked up by a reader
	secret map[string]Redactor // declared secrets
}

// NewProps returns an empty set.
func NewProps() *Props {
	return &Props{vals: map[string]entry{}, known: map[string]bool{}, looked: map[string]bool{}, secret: map[string]Redactor{}}
}

// Set sets key to value; a later Set wins, as with YCSB's -P then -p.
func (p *Props) Set(key, value string, src Source) {
	p.vals[key] = entry{value: value, src: src}
}

// SetFlag parses "key=value" given to flag (e.g. "-p").
func (p *Props) SetFlag(flag, kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return fmt.Errorf("flag %s %q: expected key=value", flag, kv)
	}
	p.Set(k, strings.TrimSpace(v), Source{Flag: flag})
	return nil
}

// LoadFile reads a Java-style properties file; see Load.
func (p *Props) LoadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("property file: %w", err)
	}
	defer f.Close()
	return p.Load(path, f)
}

// Load reads properties exactly as YCSB does (java.util.Properties.load; see
// parseProperties). name is used in error sources (file:line).
func (p *Props) Load(name string, r io.Reader) error {
	props, err := parseProperties(name, r)
	if err != nil {
		return err
	}
	for _, e := range props {
		p.Set(e.key, e.value, Source{File: name, Line: e.line})
	}
	return nil
}

// Lookup returns the raw value of key and marks key as known.
func (p *Props) Lookup(key string) (value string, src Source, ok bool) {
	p.known[key] = true
	p.looked[key] = true
	e, ok := p.vals[key]
	return e.value, e.src, ok
}

// Has tells whether key was set, without marking it as known.
func (p *Props) Has(key string) bool { _, ok := p.vals[key]; return ok }

// IsKnown tells whether a reader declared or looked up key.
func (p *Props) IsKnown(key string) bool { return p.known[key] }

// Known declares keys that are accepted but not read (e.g. YCSB's "workload").
func (p *Props) Known(keys ...string) {
	for _, k := range keys {
		p.known[k] = true
	}
}

// Errorf builds a PropError for key as it was set, for checks a reader makes
// itself (ranges, relations between keys).
func (p *Props) Errorf(key, want string, args ...any) error {
	e := p.vals[key]
	return &PropError{Key: key, Value: e.value, Src: e.src, Want: fmt.Sprintf(want, args...)}
}

// String returns key's value or def.
func (p *Props) String(key, def string) string {
	if v, _, ok := p.Lookup(key); ok {
		return v
	}
	return def
}

// Int returns key as an integer, or def when unset.
func (p *Props) Int(key string, def int64) (int64, error) {
	v, src, ok := p.Lookup(key)
	v = strings.TrimSpace(v) // Java keeps trailing blanks; a number does not care
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 64)
	if err != nil {
		return def, &PropError{Key: key, Value: v, Src: src, Want: "an integer"}
	}
	return n, nil
}

// IntMin is Int with a lower bound.
func (p *Props) IntMin(key string, def, min int64) (int64, error) {
	n, err := p.Int(key, def)
	if err == nil && n < min {
		err = p.Errorf(key, "an integer >= %d", min)
	}
	return n, err
}

// Float returns key as a number, or def when unset.
func (p *Props) Float(key string, def float64) (float64, error) {
	v, src, ok := p.Lookup(key)
	v = strings.TrimSpace(v) // Java keeps trailing blanks; a number does not care
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return def, &PropError{Key: key, Value: v, Src: src, Want: "a number"}
	}
	return f, nil
}

// Bool returns key as a boolean ("true"/"false", as Java's parseBoolean but
// strict), or def when unset.
func (p *Props) Bool(key string, def bool) (bool, error) {
	v, src, ok := p.Lookup(key)
	v = strings.TrimSpace(v) // Java keeps trailing blanks; a number does not care
	if !ok {
		return def, nil
	}
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return def, &PropError{Key: key, Value: v, Src: src, Want: "true or false"}
}

// Duration returns key as a Go duration ("1.5s", "200ms"); a bare number is
// taken as seconds.
func (p *Props) Duration(key string, def time.Duration) (time.Duration, error) {
	v, src, ok := p.Lookup(key)
	v = strings.TrimSpace(v) // Java keeps trailing blanks; a number does not care
	if !ok {
		return def, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return def, &PropError{Key: key, Value: v, Src: src, Want: `a duration such as "10s" or "250ms"`}
	}
	return d, nil
}

// Choice returns key's value, which must be one of choices (first is default).
func (p *Props) Choice(key string, choices ...string) (string, error) {
	v, src, ok := p.Lookup(key)
	v = strings.TrimSpace(v) // Java keeps trailing blanks; a number does not care
	if !ok {
		return choices[0], nil
	}
	for _, c := range choices {
		if strings.EqualFold(v, c) {
			return c, nil
		}
	}
	return choices[0], &PropError{Key: key, Value: v, Src: src, Want: "one of " + strings.Join(choices, ", ")}
}

// Unknown returns an error naming every property that was set but that no
// reader looked up or declared, with a suggestion where one is close; nil when
// all are known.
func (p *Props) Unknown() error {
	var bad []string
	for k := range p.vals {
		if !p.known[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	var b strings.Builder
	for i, k := range bad {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: unknown property %q", p.vals[k].src, k)
		if s := p.closest(k); s != "" {
			fmt.Fprintf(&b, " (did you mean %q?)", s)
		}
	}
	return &UnknownError{Keys: bad, msg: b.String()}
}

// UnknownError names properties that were set but that nothing reads: typos,
// most of the time.
type UnknownError struct {
	Keys []string // sorted
	msg  string
}

func (e *UnknownError) Error() string { return e.msg }

// Typo returns the known property of k's namespace (the text before the
// first dot, which k must have) that k is at most two edits away from — its
// spelling mistake, most likely — or "". Unlike the suggestion an unknown
// property gets, it is strict: YCSB's binding properties that dbrig does not
// read (cassandra.maxconnections) are rarely this close to one it does.
func (p *Props) Typo(k string) string {
	ns, _, ok := strings.Cut(k, ".")
	if !ok || p.known[k] {
		return ""
	}
	best, bestD := "", 3
	for cand := range p.known {
		if !strings.HasPrefix(cand, ns+".") {
			continue
		}
		if d := editDistance(strings.ToLower(k), strings.ToLower(cand)); d < bestD || d == bestD && cand < best {
			best, bestD = cand, d
		}
	}
	return best
}

func (p *Props) closest(k string) string {
	best, bestD := "", len(k)/3+1
	for cand := range p.known {
		if d := editDistance(strings.ToLower(k), strings.ToLower(cand)); d < bestD || (d == bestD && best != "" && cand < best) {
			best, bestD = cand, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Map returns all set properties with secrets redacted, for the run's context.
func (p *Props) Map() map[string]string {
	m := make(map[string]string, len(p.vals))
	for k := range p.vals {
		m[k] = p.Shown(k)
	}
	return m
}

package sqltable

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/spec"
)

// Options are the properties every SQL driver reads the same way.
type Options struct {
	Timeout  time.Duration // <system>.timeout: per operation, default 10s, 0 = none
	PoolSize int           // <system>.poolsize: connections, default max(threadcount, 4)
	Layout   *Layout       // fieldcount, fieldnameprefix
	Table    string        // table, default usertable: created at open
}

// OptionsFromProps reads <system>.timeout, threadcount, <system>.poolsize,
// the layout and table. The pool has at least one connection per client
// thread, so clients never queue for a connection in Go.
func OptionsFromProps(p *spec.Props, system string) (Options, error) {
	var o Options
	var err error
	if o.Timeout, err = p.Duration(system+".timeout", 10*time.Second); err != nil {
		return Options{}, err
	}
	threads, err := p.IntMin("threadcount", 1, 1)
	if err != nil {
		return Options{}, err
	}
	size, err := p.IntMin(system+".poolsize", max(threads, 4), 1)
	if err != nil {
		return Options{}, err
	}
	o.PoolSize = int(size)
	if o.Layout, err = LayoutFromProps(p); err != nil {
		return Options{}, err
	}
	o.Table = p.String("table", "usertable")
	return o, nil
}

// Tables is the set of tables a driver has created, by name: lookups take
// no lock (the map is copied on write), creating one is serialized. The zero
// value is empty and ready to use.
type Tables struct {
	mu sync.Mutex // serializes create
	m  atomic.Pointer[map[string]*Table]
}

// Get returns the named table, calling create (under the lock) the first
// time; a failed create is tried again by the next Get.
func (ts *Tables) Get(name string, create func() (*Table, error)) (*Table, error) {
	if t := ts.All()[name]; t != nil {
		return t, nil
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	old := ts.All()
	if t := old[name]; t != nil {
		return t, nil
	}
	t, err := create()
	if err != nil {
		return nil, err
	}
	m := make(map[string]*Table, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[name] = t
	ts.m.Store(&m)
	return t, nil
}

// All returns the tables created so far; the caller must not change the map.
func (ts *Tables) All() map[string]*Table {
	if m := ts.m.Load(); m != nil {
		return *m
	}
	return nil
}

// MismatchError is the error of a table that exists but whose CheckSQL
// failed: it names the expected columns and the properties that set them.
func (t *Table) MismatchError(system string, err error) error {
	f := t.l.Fields
	return fmt.Errorf("%s: table %s exists but not with columns %s, %s … %s (fieldcount=%d): drop it or change fieldcount/fieldnameprefix: %w",
		system, t.Name, KeyColumn, f[0], f[len(f)-1], len(f), err)
}

// ScanDest returns n value slots and pointers to them, for a row's Scan.
func ScanDest(n int) ([][]byte, []any) {
	vals := make([][]byte, n)
	dst := make([]any, n)
	for i := range vals {
		dst[i] = &vals[i]
	}
	return vals, dst
}

package drivertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
)

// memDB is a reference driver kept in memory. bug names a deliberate
// defect, so the suite can be shown to catch it. Its network's delays pass
// on clock, the harness's virtual clock, not in real time: how long a
// timeout took is then the same on a busy machine (beside a CPU burner a
// real 200 ms sleep took 432 ms, beyond Timeout + Slack).
type memDB struct {
	bug     string
	timeout time.Duration
	clock   *vclock

	mu     sync.Mutex
	tables map[string]map[string]driver.Record

	down  atomic.Bool
	delay atomic.Int64
}

// fault simulates the network: refused while down, a timeout when the
// round trip is slower than the timeout.
func (m *memDB) fault(ctx context.Context) error {
	if m.down.Load() {
		if m.bug == "hang" {
			m.clock.sleep(3 * m.timeout)
		}
		return errclass.Wrap(errclass.Unavailable, errors.New("connection refused"))
	}
	if rtt := 2 * time.Duration(m.delay.Load()); rtt > 0 {
		if rtt > m.timeout {
			m.clock.sleep(m.timeout)
			return errclass.Wrap(errclass.Timeout, errors.New("i/o timeout"))
		}
		m.clock.sleep(rtt)
	}
	return ctx.Err()
}

// vclock is a virtual clock: it stands still but for what the memDBs
// slept.
type vclock struct{ slept atomic.Int64 }

func (c *vclock) now() time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(c.slept.Load()))
}
func (c *vclock) sleep(d time.Duration) { c.slept.Add(int64(d)) }

func (m *memDB) copyIn(r driver.Record) driver.Record {
	if m.bug == "retain" {
		return r
	}
	return clone(r)
}

func (m *memDB) key(k string) string {
	if m.bug == "casefold" {
		return strings.ToLower(k)
	}
	return k
}

func (m *memDB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	if err := m.fault(ctx); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.tables[table][m.key(key)]
	if !ok {
		return nil, fmt.Errorf("read %q: %w", key, errclass.ErrNotFound)
	}
	if fields == nil {
		return clone(r), nil
	}
	return clone(only(r, fields...)), nil
}

func (m *memDB) Scan(ctx context.Context, table, start string, n int, fields []string) ([]driver.Record, error) {
	if err := m.fault(ctx); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var keys []string
	for k := range m.tables[table] {
		if k >= start && !(m.bug == "exclusive" && k == start) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []driver.Record
	for _, k := range keys[:min(n, len(keys))] {
		r := m.tables[table][k]
		if fields != nil {
			r = only(r, fields...)
		}
		out = append(out, clone(r))
	}
	return out, nil
}

func (m *memDB) Update(ctx context.Context, table, key string, values driver.Record) error {
	if err := m.fault(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.tables[table][m.key(key)]
	if !ok {
		if m.bug != "upsert" {
			return fmt.Errorf("update %q: %w", key, errclass.ErrNotFound)
		}
		r = driver.Record{}
		m.tables[table][m.key(key)] = r
	}
	for f, v := range m.copyIn(values) {
		r[f] = v
	}
	return nil
}

func (m *memDB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	if err := m.fault(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tables[table][m.key(key)] = m.copyIn(values)
	return nil
}

func (m *memDB) Delete(ctx context.Context, table, key string) error {
	if err := m.fault(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tables[table][m.key(key)]; !ok {
		return fmt.Errorf("delete %q: %w", key, errclass.ErrNotFound)
	}
	delete(m.tables[table], m.key(key))
	return nil
}

func (m *memDB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	if len(keys) != len(values) {
		return fmt.Errorf("batch of %d keys and %d values", len(keys), len(values))
	}
	for i, k := range keys {
		if err := m.Insert(ctx, table, k, values[i]); err != nil {
			return err
		}
	}
	return nil
}

func (m *memDB) ServerVersion(context.Context) (string, error) { return "mem 1.0", nil }

func (m *memDB) Target() string {
	if m.bug == "secret" {
		return "mem://user:hunter2@local"
	}
	return "mem://user:REDACTED@local"
}

func (m *memDB) Close() error { return nil }

// memOutage breaks and heals every memDB opened by one harness.
type memOutage struct{ dbs *[]*memDB }

func (o memOutage) Down() error { o.each(func(m *memDB) { m.down.Store(true) }); return nil }
func (o memOutage) Up() error   { o.each(func(m *memDB) { m.down.Store(false) }); return nil }
func (o memOutage) Delay(d time.Duration) {
	o.each(func(m *memDB) { m.delay.Store(int64(d)) })
}
func (o memOutage) each(f func(*memDB)) {
	for _, m := range *o.dbs {
		f(m)
	}
}

func memHarness(bug string) Harness {
	const timeout = 200 * time.Millisecond
	var dbs []*memDB
	clock := &vclock{}
	return Harness{
		Clock: clock.now,
		Open: func(t *testing.T, table string) driver.DB {
			m := &memDB{bug: bug, timeout: timeout, clock: clock, tables: map[string]map[string]driver.Record{table: {}}}
			dbs = append(dbs, m)
			return m
		},
		Outage:   memOutage{&dbs},
		Timeout:  timeout,
		Slack:    200 * time.Millisecond,
		Recovery: time.Second,
		Secrets:  []string{"hunter2"},
	}
}

// TestConformanceMem runs the suite on the reference driver; with
// DRIVERTEST_MEM_BUG set (by TestSuiteCatchesBugs) on a broken one.
func TestConformanceMem(t *testing.T) {
	Run(t, memHarness(os.Getenv("DRIVERTEST_MEM_BUG")))
}

// TestSuiteCatchesBugs shows that the suite fails for each deliberate defect,
// with the message that names it. Each run is a child test process, since a
// failing suite fails the test that runs it.
func TestSuiteCatchesBugs(t *testing.T) {
	if os.Getenv("DRIVERTEST_MEM_BUG") != "" {
		t.Skip("in a child process")
	}
	for _, tc := range []struct{ bug, want string }{
		{"upsert", "Update of a missing key: error <nil>"},
		{"retain", "--- FAIL: TestConformanceMem/NotRetained"},
		{"exclusive", `Scan("k05", 2, []) keys = ["k06" "k07"], want ["k05" "k06"]`},
		{"casefold", "--- FAIL: TestConformanceMem/Keys"},
		{"secret", `contains the secret "hunter2"`},
		{"hang", "Read during outage took"},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestConformanceMem$", "-test.count=1")
			cmd.Env = append(os.Environ(), "DRIVERTEST_MEM_BUG="+tc.bug)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a driver with bug %q:\n%s", tc.bug, out)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Fatalf("the suite failed for bug %q, but without %q:\n%s", tc.bug, tc.want, out)
			}
		})
	}
}

func TestProxies(t *testing.T) {
	var targets []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() { // answers "ok" to every connection
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Write([]byte("ok"))
				c.Close()
			}
		}()
		targets = append(targets, ln.Addr().String())
	}
	ps := NewProxies(t, targets...)
	addrs := ps.Addrs()
	if len(addrs) != 2 || addrs[0] == addrs[1] {
		t.Fatalf("Addrs = %v, want two distinct addresses", addrs)
	}
	for i, p := range ps {
		if p.Target() != targets[i] || addrs[i] != p.Addr() {
			t.Fatalf("proxy %d: %s → %s, want %s → %s", i, p.Addr(), p.Target(), addrs[i], targets[i])
		}
	}
	hello := func(addr string) error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(2 * time.Second))
		b, err := io.ReadAll(c)
		if err == nil && string(b) != "ok" {
			err = fmt.Errorf("read %q, want ok", b)
		}
		return err
	}
	for _, a := range addrs {
		if err := hello(a); err != nil {
			t.Fatalf("before Down: %v", err)
		}
	}
	var o Outage = ps
	if err := o.Down(); err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if err := hello(a); err == nil {
			t.Fatalf("%s answers while down", a)
		}
	}
	if err := o.Up(); err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if err := hello(a); err != nil {
			t.Fatalf("after Up: %v", err)
		}
	}
}

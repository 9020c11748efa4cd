// Package drivertest is the conformance suite every dbrig driver passes.
//
// A driver adds one test function that calls Run with a Harness:
//
//	func TestConformance(t *testing.T) {
//		addr := testenv.Need(t, "DBRIG_REDIS_ADDR")
//		px := drivertest.NewProxies(t, addr) // outage through a loopback TCP proxy
//		drivertest.Run(t, drivertest.Harness{
//			Open: func(t *testing.T, table string) driver.DB {
//				p := drivertest.Props("redis.addr", px.Addrs()[0], "redis.password", os.Getenv("DBRIG_REDIS_PASSWORD"),
//					"redis.timeout", "1s", "table", table)
//				return drivertest.Open(t, redis.Open, driver.Config{Props: p, Dir: t.TempDir()})
//			},
//			Outage:  px,
//			Timeout: time.Second,
//		})
//	}
//
// The contract the suite checks, beyond the comments of driver.DB:
//
//   - Every subtest uses its own fresh table name (lowercase ASCII letters,
//     digits and '_', starts with a letter, at most 30 bytes). Open must
//     return a DB on which that table exists and is empty; SQL drivers get it
//     created by setting the YCSB "table" property, key-value drivers use it
//     as a key prefix. Open should drop what it created with t.Cleanup when
//     the system keeps data between runs. The suite closes the DB (and checks
//     that Close returns nil) when the subtest ends.
//   - Records have the fields field0..field{FieldCount-1} (YCSB's defaults);
//     the suite always inserts all of them. Values are arbitrary bytes (all
//     256 byte values, empty values, 1 MiB values); keys are case-sensitive
//     UTF-8 strings compared bytewise.
//   - Read and Scan return exactly the fields asked for, or all fields when
//     fields is nil. Scan returns up to n records in bytewise key order from
//     startKey inclusive; a startKey between keys starts at the next key;
//     fewer than n records remain → all of them; none → empty, no error.
//     A driver that cannot scan returns an error wrapping
//     errors.ErrUnsupported (then the suite only checks that).
//   - A missing key: Read, Update and Delete return an error wrapping
//     errclass.ErrNotFound. Update never creates a record (YCSB's update of a
//     missing key is an error, not an upsert). Insert of an existing key is
//     not checked: replacing or failing are both allowed.
//   - Drivers do not retain the Record values passed to them, and callers
//     own the Records returned to them.
//   - BatchInserter (when implemented): batches of any size, an empty batch is
//     a no-op, keys and values of different lengths are an error.
//   - Versioner and Describer (when implemented): a non-empty version; a
//     non-empty target that contains none of Harness.Secrets.
//   - Outage (when Harness.Outage is set): while down, an operation fails
//     within Timeout + Slack with class unavailable or timeout (it never
//     hangs, even with a context without deadline); after up, operations
//     succeed again within Recovery. If the Outage can also add latency
//     (Delayer), an operation slower than Timeout fails with class timeout.
//
// A time-series store (driver.Points) also calls RunPoints with a
// PointsHarness: points written out of order in several requests are read
// back with their tags and times exact, a span's ends included; Last is
// each series' newest point; every aggregate, in buckets that start at the
// query's From, matches a reference computed by the suite; a point written
// again replaces the old one (unless the harness says the store keeps both).
package drivertest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"

	"github.com/dbrig/dbrig/inject/proxy"
)

// Harness tells the suite how to open the driver under test.
type Harness struct {
	// Open returns a DB on which table exists and is empty (see the package
	// comment). It fails t itself when it cannot open.
	Open func(t *testing.T, table string) driver.DB
	// Outage, when set, breaks and heals the connection between the DBs that
	// Open returns and their server (e.g. Proxies in front of the server).
	Outage Outage
	// Timeout is the per-operation timeout the harness configured (e.g.
	// redis.timeout); default 5s.
	Timeout time.Duration
	// Slack is added to Timeout to bound a failing operation; default 2s
	// (the machine is shared, and clients retry once or twice).
	Slack time.Duration
	// Recovery bounds how long after Outage.Up operations may still fail;
	// default 10s.
	Recovery time.Duration
	// Secrets must not appear in Describer.Target (e.g. the password).
	Secrets []string
	// FieldCount is the number of fields per record; default 10 (field0..field9).
	FieldCount int
	// Clock, when set, is the clock that times a failing operation against
	// Timeout + Slack (nil: time.Now): a reference driver that plays its
	// network's delays in virtual time sets it, so that how long a failure
	// took does not depend on how busy the machine is.
	Clock func() time.Time
}

// Outage makes the server unreachable (Down) and reachable again (Up).
type Outage interface {
	Down() error
	Up() error
}

// Delayer is an Outage that can also add latency per direction; 0 removes it.
type Delayer interface {
	Delay(d time.Duration)
}

// Proxies is an Outage made of loopback TCP proxies (inject/proxy), one per
// server endpoint: Down cuts all of them, Up restores them.
type Proxies []*proxy.Proxy

// NewProxies starts a proxy in front of each target ("host:port"); they are
// closed when t ends. Connect the driver to Addrs() instead of the targets.
func NewProxies(t testing.TB, targets ...string) Proxies {
	t.Helper()
	ps := make(Proxies, 0, len(targets))
	for _, target := range targets {
		p, err := proxy.Listen(target)
		if err != nil {
			t.Fatalf("drivertest: %v", err)
		}
		t.Cleanup(func() { p.Close() })
		ps = append(ps, p)
	}
	return ps
}

// Addrs are the proxies' addresses, in the order of the targets.
func (ps Proxies) Addrs() []string {
	addrs := make([]string, len(ps))
	for i, p := range ps {
		addrs[i] = p.Addr()
	}
	return addrs
}

// Down cuts every proxy.
func (ps Proxies) Down() error {
	for _, p := range ps {
		p.Cut()
	}
	return nil
}

// Up restores every proxy.
func (ps Proxies) Up() error {
	for _, p := range ps {
		if err := p.Restore(); err != nil {
			return err
		}
	}
	return nil
}

// Delay adds latency to every proxy.
func (ps Proxies) Delay(d time.Duration) {
	for _, p := range ps {
		p.Delay(d)
	}
}

// Run runs the conformance suite as subtests of t.
func Run(t *testing.T, h Harness) {
	if h.Open == nil {
		t.Fatal("drivertest: Harness.Open is nil")
	}
	if h.Timeout <= 0 {
		h.Timeout = 5 * time.Second
	}
	if h.Slack <= 0 {
		h.Slack = 2 * time.Second
	}
	if h.Recovery <= 0 {
		h.Recovery = 10 * time.Second
	}
	if h.FieldCount <= 0 {
		h.FieldCount = 10
	}
	if h.Clock == nil {
		h.Clock = time.Now
	}
	s := &suite{h: h, run: fmt.Sprintf("%06x", rand.Uint32()&0xffffff)}
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, driver.DB, string)
	}{
		{"InsertRead", s.insertRead},
		{"NotRetained", s.notRetained},
		{"Update", s.update},
		{"Delete", s.delete},
		{"Missing", s.missing},
		{"Scan", s.scan},
		{"Values", s.values},
		{"Keys", s.keys},
		{"Concurrent", s.concurrent},
		{"BatchInsert", s.batchInsert},
		{"Version", s.version},
		{"Target", s.target},
		{"Outage", s.outage},
		{"Latency", s.latency},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table := "dt_" + s.run + "_" + strings.ToLower(tc.name)
			db := h.Open(t, table)
			if db == nil {
				t.Fatal("Harness.Open returned nil")
			}
			t.Cleanup(func() {
				if err := db.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, db, table)
		})
	}
}

type suite struct {
	h   Harness
	run string // random per Run, so tables of earlier runs never collide
}

package experiment

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/driver/postgres"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// lagDB is a store with a primary and a replica that applies the primary's
// writes only when told (sync): reads go to the replica.
type lagDB struct {
	driver.DB // nil: only Read, Update, Insert are used
	mu        sync.Mutex
	primary   map[string]driver.Record
	replica   map[string]driver.Record
}

func newLagDB() *lagDB {
	return &lagDB{primary: map[string]driver.Record{}, replica: map[string]driver.Record{}}
}

func (l *lagDB) put(key string, values driver.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := driver.Record{}
	for f, v := range l.primary[key] {
		r[f] = v
	}
	for f, v := range values {
		r[f] = v
	}
	l.primary[key] = r
}

func (l *lagDB) Update(_ context.Context, _, key string, values driver.Record) error {
	l.put(key, values)
	return nil
}

func (l *lagDB) Insert(_ context.Context, _, key string, values driver.Record) error {
	l.put(key, values)
	return nil
}

func (l *lagDB) Read(_ context.Context, _, key string, fields []string) (driver.Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.replica[key]
	if !ok {
		return nil, errclass.ErrNotFound
	}
	return r, nil
}

func (l *lagDB) sync() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, r := range l.primary {
		l.replica[k] = r
	}
}

func val(s string) []byte { return []byte(fmt.Sprintf("%-20s", s)) }

func TestStaleReadsJudges(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name                   string
		do                     func(db driver.DB, lag *lagDB)
		unpredictable, checked int64
		wrong                  int64
	}{
		{"replica caught up", func(db driver.DB, lag *lagDB) {
			db.Insert(ctx, "t", "k", driver.Record{"f0": val("a"), "f1": val("b")})
			lag.sync()
			db.Read(ctx, "t", "k", nil)
		}, 0, 1, 0},
		{"replica behind", func(db driver.DB, lag *lagDB) {
			db.Insert(ctx, "t", "k", driver.Record{"f0": val("a")})
			lag.sync()
			db.Update(ctx, "t", "k", driver.Record{"f0": val("b")})
			db.Read(ctx, "t", "k", []string{"f0"})
		}, 1, 1, 0},
		{"field not written since", func(db driver.DB, lag *lagDB) {
			db.Insert(ctx, "t", "k", driver.Record{"f0": val("a"), "f1": val("b")})
			lag.sync()
			db.Update(ctx, "t", "k", driver.Record{"f0": val("c")})
			db.Read(ctx, "t", "k", []string{"f1"})
		}, 0, 1, 0},
		{"never written by the check", func(db driver.DB, lag *lagDB) {
			lag.replica["old"] = driver.Record{"f0": val("loaded before")}
			db.Read(ctx, "t", "old", nil)
		}, 0, 0, 0},
		{"a value no writer wrote", func(db driver.DB, lag *lagDB) {
			db.Insert(ctx, "t", "k", driver.Record{"f0": val("a")})
			lag.sync()
			lag.replica["k"] = driver.Record{"f0": []byte("~vffffffffffffff forged")}
			db.Read(ctx, "t", "k", nil)
		}, 0, 0, 1},
		{"short values are not stamped", func(db driver.DB, lag *lagDB) {
			db.Insert(ctx, "t", "k", driver.Record{"f0": []byte("short")})
			db.Read(ctx, "t", "k", nil)
		}, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lag := newLagDB()
			s := NewStaleReads()
			tc.do(s.Wrap(lag), lag)
			got := s.Result()
			if got.Unpredictable != tc.unpredictable || got.Checked != tc.checked || got.Wrong != tc.wrong {
				t.Errorf("%+v, want unpredictable %d, checked %d, wrong %d", got, tc.unpredictable, tc.checked, tc.wrong)
			}
		})
	}
}

// Two writes of a field at once may land in either order: whichever a
// later read returns, it is not called stale.
func TestStaleReadsOverlapNotJudged(t *testing.T) {
	ctx := context.Background()
	lag := newLagDB()
	s := NewStaleReads()
	v1 := s.begin("t", "k", driver.Record{"f0": val("x")})
	v2 := s.begin("t", "k", driver.Record{"f0": val("y")})
	lag.put("k", stamp(driver.Record{"f0": val("y")}, v2))
	lag.put("k", stamp(driver.Record{"f0": val("x")}, v1)) // applied last
	s.end("t", "k", driver.Record{"f0": val("y")}, v2, nil)
	s.end("t", "k", driver.Record{"f0": val("x")}, v1, nil)
	lag.sync()
	s.Wrap(lag).Read(ctx, "t", "k", nil)
	if got := s.Result(); got.Unpredictable != 0 || got.Wrong != 0 {
		t.Errorf("%+v: overlapping writes judged", got)
	}
}

func TestStampRoundTrip(t *testing.T) {
	for _, v := range []uint64{1, 255, 1 << 40} {
		r := stamp(driver.Record{"f": val("abc")}, v)
		got, ok, bad := version(r["f"])
		if !ok || bad || got != v || len(r["f"]) != 20 {
			t.Errorf("version %d: got %d ok %v bad %v len %d", v, got, ok, bad, len(r["f"]))
		}
	}
	if _, ok, _ := version(val("no stamp here at all")); ok {
		t.Error("a plain value has a stamp")
	}
}

// splitDB writes to the primary and reads from another server.
type splitDB struct {
	driver.DB // the primary
	reads     driver.DB
}

func (s splitDB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	return s.reads.Read(ctx, table, key, fields)
}

// On a PostgreSQL primary with an asynchronous streaming replica, reads
// from the replica right after acknowledged writes to the primary are
// sometimes stale, and the checker counts them; the same reads from the
// primary never are.
func TestStaleReadsOnPostgresReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL primary and replica")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := cluster.Up(ctx, postgres.Cluster{Replicas: 1, Settings: map[string]string{"fsync": "off"}}, cluster.Options{})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(context.Background())
	urls := map[string]string{}
	for _, n := range c.Nodes() {
		urls[n.Role] = n.URL
	}
	if urls["primary"] == "" || urls["replica"] == "" {
		t.Fatalf("nodes %+v: want a primary and a replica", c.Nodes())
	}
	reg := all.Registry()
	open := func(url string) driver.DB {
		p := spec.NewProps()
		if err := p.Load("test", strings.NewReader("pg.url="+url+"\ntable=stale\nthreadcount=8\n")); err != nil {
			t.Fatal(err)
		}
		db, err := reg.Open(ctx, "postgres", driver.Config{Props: p, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	primary := open(urls["primary"])
	const keys = 50
	keyOf := func(i int) string { return fmt.Sprintf("user%03d", i) }
	for i := range keys {
		if err := primary.Insert(ctx, "stale", keyOf(i), driver.Record{"field0": val("loaded")}); err != nil {
			t.Fatal(err)
		}
	}
	// Let the replica catch up with the load (and the table: the driver
	// would create it, which a replica refuses).
	time.Sleep(time.Second)
	replica := open(urls["replica"])
	measure := func(reads driver.DB) StaleResult {
		s := NewStaleReads()
		db := s.Wrap(splitDB{primary, reads})
		var wg sync.WaitGroup
		stop := time.Now().Add(1500 * time.Millisecond)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 7))
				for time.Now().Before(stop) {
					k := keyOf(r.IntN(keys))
					if err := db.Update(ctx, "stale", k, driver.Record{"field0": val("w")}); err != nil {
						t.Error(err)
						return
					}
					// Read it back at once, as a client of the same service would.
					if _, err := db.Read(ctx, "stale", k, []string{"field0"}); err != nil && !errors.Is(err, errclass.ErrNotFound) {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return s.Result()
	}
	fromReplica := measure(replica)
	fromPrimary := measure(primary)
	t.Logf("reads from the replica: %+v", fromReplica)
	t.Logf("reads from the primary: %+v", fromPrimary)
	if fromReplica.Checked < 100 || fromReplica.Unpredictable == 0 {
		t.Errorf("replica: %+v, want unpredictable reads among at least 100 checked", fromReplica)
	}
	if fromPrimary.Checked < 100 || fromPrimary.Unpredictable != 0 || fromPrimary.Wrong != 0 || fromReplica.Wrong != 0 {
		t.Errorf("primary: %+v (replica wrong %d), want no unpredictable or wrong reads among at least 100 checked", fromPrimary, fromReplica.Wrong)
	}
}

package drivertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
)

// opTimeout bounds one healthy operation, so a hanging driver fails the
// test instead of blocking it until go test's global timeout.
const opTimeout = 30 * time.Second

func (s *suite) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), opTimeout)
	t.Cleanup(cancel)
	return ctx
}

func field(i int) string { return "field" + strconv.Itoa(i) }

func (s *suite) fields() []string {
	fs := make([]string, s.h.FieldCount)
	for i := range fs {
		fs[i] = field(i)
	}
	return fs
}

// record builds a full record; field0 holds the key so scans can be checked.
func (s *suite) record(key, tag string) driver.Record {
	r := driver.Record{field(0): []byte(key)}
	for i := 1; i < s.h.FieldCount; i++ {
		r[field(i)] = []byte(fmt.Sprintf("%s-%s-%d", tag, key, i))
	}
	return r
}

func clone(r driver.Record) driver.Record {
	c := make(driver.Record, len(r))
	for k, v := range r {
		c[k] = bytes.Clone(v)
	}
	return c
}

// only keeps the named fields of r.
func only(r driver.Record, fields ...string) driver.Record {
	c := make(driver.Record, len(fields))
	for _, f := range fields {
		c[f] = r[f]
	}
	return c
}

// diff describes how got differs from want ("" when equal); empty and nil
// values are equal.
func diff(want, got driver.Record) string {
	var d []string
	for f, w := range want {
		g, ok := got[f]
		switch {
		case !ok:
			d = append(d, "missing field "+f)
		case !bytes.Equal(w, g):
			d = append(d, fmt.Sprintf("%s = %s, want %s", f, show(g), show(w)))
		}
	}
	for f := range got {
		if _, ok := want[f]; !ok {
			d = append(d, "unexpected field "+f)
		}
	}
	sort.Strings(d)
	return strings.Join(d, "; ")
}

func show(b []byte) string {
	if len(b) > 40 {
		return fmt.Sprintf("%q…(%d bytes)", b[:40], len(b))
	}
	return fmt.Sprintf("%q", b)
}

func (s *suite) insert(t *testing.T, db driver.DB, table, key string, r driver.Record) {
	t.Helper()
	if err := db.Insert(s.ctx(t), table, key, r); err != nil {
		t.Fatalf("Insert %q: %v", key, err)
	}
}

// check reads key with fields and compares with want.
func (s *suite) check(t *testing.T, db driver.DB, table, key string, fields []string, want driver.Record) {
	t.Helper()
	got, err := db.Read(s.ctx(t), table, key, fields)
	if err != nil {
		t.Fatalf("Read %q %v: %v", key, fields, err)
	}
	if d := diff(want, got); d != "" {
		t.Fatalf("Read %q %v: %s", key, fields, d)
	}
}

// wantNotFound checks that err is a not-found error, by errors.Is and class.
func wantNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, errclass.ErrNotFound) {
		t.Fatalf("%s: error %v, want one wrapping errclass.ErrNotFound", what, err)
	}
	if c := errclass.Of(err); c != errclass.NotFound {
		t.Fatalf("%s: class %q, want %q", what, c, errclass.NotFound)
	}
}

func (s *suite) insertRead(t *testing.T, db driver.DB, table string) {
	rec := s.record("user1", "v")
	s.insert(t, db, table, "user1", rec)
	s.check(t, db, table, "user1", nil, rec)
	s.check(t, db, table, "user1", s.fields(), rec)
	sel := []string{field(1), field(s.h.FieldCount - 1)}
	s.check(t, db, table, "user1", sel, only(rec, sel...))
	s.check(t, db, table, "user1", []string{field(0)}, only(rec, field(0)))
}

func (s *suite) notRetained(t *testing.T, db driver.DB, table string) {
	rec := s.record("user1", "v")
	want := clone(rec)
	s.insert(t, db, table, "user1", rec)
	for _, v := range rec { // the caller reuses its buffers after the call
		for i := range v {
			v[i] = 'X'
		}
	}
	s.check(t, db, table, "user1", nil, want)

	got, err := db.Read(s.ctx(t), table, "user1", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range got { // the caller owns what it read
		for i := range v {
			v[i] = 'Y'
		}
	}
	got[field(1)] = []byte("replaced")
	s.check(t, db, table, "user1", nil, want)

	upd := driver.Record{field(2): []byte("updated")}
	if err := db.Update(s.ctx(t), table, "user1", upd); err != nil {
		t.Fatal(err)
	}
	copy(upd[field(2)], "ZZZZZZZ")
	want[field(2)] = []byte("updated")
	s.check(t, db, table, "user1", nil, want)
}

func (s *suite) update(t *testing.T, db driver.DB, table string) {
	rec := s.record("user1", "v")
	other := s.record("user2", "v")
	s.insert(t, db, table, "user1", rec)
	s.insert(t, db, table, "user2", other)
	for round, upd := range []driver.Record{
		{field(1): []byte("one")},
		{field(1): []byte("two"), field(s.h.FieldCount - 1): []byte("last")},
		{field(2): {}}, // an empty value is a value
	} {
		if err := db.Update(s.ctx(t), table, "user1", clone(upd)); err != nil {
			t.Fatalf("Update round %d: %v", round, err)
		}
		for f, v := range upd {
			rec[f] = v
		}
		s.check(t, db, table, "user1", nil, rec)
	}
	s.check(t, db, table, "user2", nil, other) // a neighbour is untouched
}

func (s *suite) delete(t *testing.T, db driver.DB, table string) {
	for _, k := range []string{"user1", "user2"} {
		s.insert(t, db, table, k, s.record(k, "v"))
	}
	if err := db.Delete(s.ctx(t), table, "user1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err := db.Read(s.ctx(t), table, "user1", nil)
	wantNotFound(t, "Read after Delete", err)
	wantNotFound(t, "second Delete", db.Delete(s.ctx(t), table, "user1"))
	s.check(t, db, table, "user2", nil, s.record("user2", "v"))
	// The key can be used again.
	s.insert(t, db, table, "user1", s.record("user1", "w"))
	s.check(t, db, table, "user1", nil, s.record("user1", "w"))
}

func (s *suite) missing(t *testing.T, db driver.DB, table string) {
	s.insert(t, db, table, "user1", s.record("user1", "v"))
	_, err := db.Read(s.ctx(t), table, "nouser", nil)
	wantNotFound(t, "Read of a missing key", err)
	_, err = db.Read(s.ctx(t), table, "nouser", []string{field(1)})
	wantNotFound(t, "Read of fields of a missing key", err)
	err = db.Update(s.ctx(t), table, "nouser", driver.Record{field(1): []byte("x")})
	wantNotFound(t, "Update of a missing key", err)
	_, err = db.Read(s.ctx(t), table, "nouser", nil)
	wantNotFound(t, "Read after Update of a missing key (Update must not create it)", err)
	wantNotFound(t, "Delete of a missing key", db.Delete(s.ctx(t), table, "nouser"))
	// The failed operations left the existing record alone.
	s.check(t, db, table, "user1", []string{field(0)}, driver.Record{field(0): []byte("user1")})
}

func (s *suite) scan(t *testing.T, db driver.DB, table string) {
	keys := make([]string, 20)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%02d", i)
	}
	shuffled := slices.Clone(keys)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, k := range shuffled {
		s.insert(t, db, table, k, s.record(k, "v"))
	}
	_, err := db.Scan(s.ctx(t), table, "k00", 1, nil)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("Scan is not supported: %v", err)
	}
	for _, tc := range []struct {
		name  string
		start string
		n     int
		want  []string
	}{
		{"from first", "k00", 3, keys[:3]},
		{"inclusive start", "k05", 2, keys[5:7]},
		{"start between keys", "k05a", 2, keys[6:8]},
		{"start before all", "", 4, keys[:4]},
		{"n beyond the end", "k17", 10, keys[17:]},
		{"exactly all", "k00", 20, keys},
		{"start after all", "k99", 5, nil},
		{"one", "k19", 1, keys[19:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, fields := range [][]string{nil, {field(0)}, {field(0), field(2)}} {
				recs, err := db.Scan(s.ctx(t), table, tc.start, tc.n, fields)
				if err != nil {
					t.Fatalf("Scan(%q, %d, %v): %v", tc.start, tc.n, fields, err)
				}
				var got []string
				for i, r := range recs {
					got = append(got, string(r[field(0)]))
					want := s.record(string(r[field(0)]), "v")
					if fields != nil {
						want = only(want, fields...)
					}
					if d := diff(want, r); d != "" {
						t.Fatalf("Scan(%q, %d, %v) record %d: %s", tc.start, tc.n, fields, i, d)
					}
				}
				if !slices.Equal(got, tc.want) {
					t.Fatalf("Scan(%q, %d, %v) keys = %q, want %q", tc.start, tc.n, fields, got, tc.want)
				}
			}
		})
	}
}

func (s *suite) values(t *testing.T, db driver.DB, table string) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	rng := rand.NewChaCha8([32]byte{1})
	big := make([]byte, 1<<20)
	rng.Read(big)
	big2 := make([]byte, 1<<20)
	rng.Read(big2)

	rec := s.record("bin", "v")
	rec[field(1)] = all
	rec[field(2)] = []byte{}
	rec[field(3)] = big
	s.insert(t, db, table, "bin", clone(rec))
	s.check(t, db, table, "bin", nil, rec)
	s.check(t, db, table, "bin", []string{field(3)}, only(rec, field(3)))

	if err := db.Update(s.ctx(t), table, "bin", driver.Record{field(3): bytes.Clone(big2)}); err != nil {
		t.Fatalf("Update with 1 MiB: %v", err)
	}
	rec[field(3)] = big2
	s.check(t, db, table, "bin", nil, rec)
}

func (s *suite) keys(t *testing.T, db driver.DB, table string) {
	keys := []string{
		"ключ-1", "キー🔑", "clé é", "Key", "key", // case-sensitive: Key ≠ key
		"a b:c/d{e}*?[x]%_'\"\\", strings.Repeat("long", 50),
	}
	for _, k := range keys {
		s.insert(t, db, table, k, s.record(k, "v"))
	}
	for _, k := range keys {
		s.check(t, db, table, k, nil, s.record(k, "v"))
	}
	if err := db.Delete(s.ctx(t), table, "Key"); err != nil {
		t.Fatal(err)
	}
	_, err := db.Read(s.ctx(t), table, "Key", nil)
	wantNotFound(t, `Read "Key" after its Delete`, err)
	s.check(t, db, table, "key", nil, s.record("key", "v"))
}

func (s *suite) concurrent(t *testing.T, db driver.DB, table string) {
	const clients, rounds = 8, 50 // 4 ops per round: 200 ops per client
	shared := s.record("shared", "v")
	s.insert(t, db, table, "shared", shared)
	ctx := s.ctx(t)
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.client(ctx, db, table, c, rounds, shared)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// client does rounds of insert, read, update, read-of-shared on its own keys.
func (s *suite) client(ctx context.Context, db driver.DB, table string, c, rounds int, shared driver.Record) error {
	for i := range rounds {
		key := fmt.Sprintf("c%d-%03d", c, i)
		rec := s.record(key, "v")
		if err := db.Insert(ctx, table, key, rec); err != nil {
			return fmt.Errorf("client %d: Insert %s: %w", c, key, err)
		}
		got, err := db.Read(ctx, table, key, nil)
		if err != nil {
			return fmt.Errorf("client %d: Read %s: %w", c, key, err)
		}
		if d := diff(rec, got); d != "" {
			return fmt.Errorf("client %d: Read %s: %s", c, key, d)
		}
		upd := []byte(fmt.Sprintf("u%d", i))
		if err := db.Update(ctx, table, key, driver.Record{field(1): upd}); err != nil {
			return fmt.Errorf("client %d: Update %s: %w", c, key, err)
		}
		got, err = db.Read(ctx, table, "shared", []string{field(1)})
		if err != nil {
			return fmt.Errorf("client %d: Read shared: %w", c, err)
		}
		if d := diff(only(shared, field(1)), got); d != "" {
			return fmt.Errorf("client %d: Read shared: %s", c, d)
		}
	}
	// Every update of this client landed on its own key.
	for i := range rounds {
		key := fmt.Sprintf("c%d-%03d", c, i)
		got, err := db.Read(ctx, table, key, []string{field(0), field(1)})
		if err != nil {
			return fmt.Errorf("client %d: final Read %s: %w", c, key, err)
		}
		want := driver.Record{field(0): []byte(key), field(1): []byte(fmt.Sprintf("u%d", i))}
		if d := diff(want, got); d != "" {
			return fmt.Errorf("client %d: final Read %s: %s", c, key, d)
		}
	}
	return nil
}

func (s *suite) batchInsert(t *testing.T, db driver.DB, table string) {
	bi, ok := db.(driver.BatchInserter)
	if !ok {
		t.Skip("the driver has no BatchInserter")
	}
	if err := bi.InsertBatch(s.ctx(t), table, nil, nil); err != nil {
		t.Fatalf("empty batch: %v", err)
	}
	if err := bi.InsertBatch(s.ctx(t), table, []string{"a", "b"}, []driver.Record{s.record("a", "v")}); err == nil {
		t.Fatal("a batch of 2 keys and 1 record succeeded; want an error")
	}
	var all []string
	next := 0
	for _, size := range []int{1, 7, 192} {
		keys := make([]string, size)
		recs := make([]driver.Record, size)
		for i := range keys {
			keys[i] = fmt.Sprintf("b%04d", next)
			recs[i] = s.record(keys[i], "v")
			next++
		}
		if err := bi.InsertBatch(s.ctx(t), table, keys, recs); err != nil {
			t.Fatalf("batch of %d: %v", size, err)
		}
		for _, r := range recs { // not retained
			clear(r)
		}
		all = append(all, keys...)
	}
	for _, k := range all {
		s.check(t, db, table, k, nil, s.record(k, "v"))
	}
	// Nothing else was written: a scan from the start sees exactly the batch.
	recs, err := db.Scan(s.ctx(t), table, "", len(all)+10, []string{field(0)})
	if errors.Is(err, errors.ErrUnsupported) {
		return
	}
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	if len(recs) != len(all) {
		t.Fatalf("Scan after batches returned %d records, want %d", len(recs), len(all))
	}
}

func (s *suite) version(t *testing.T, db driver.DB, _ string) {
	v, ok := db.(driver.Versioner)
	if !ok {
		t.Skip("the driver has no Versioner")
	}
	ver, err := v.ServerVersion(s.ctx(t))
	if err != nil {
		t.Fatalf("ServerVersion: %v", err)
	}
	if strings.TrimSpace(ver) == "" {
		t.Fatal("ServerVersion is empty")
	}
	t.Logf("server version %q", ver)
}

func (s *suite) target(t *testing.T, db driver.DB, _ string) {
	d, ok := db.(driver.Describer)
	if !ok {
		t.Skip("the driver has no Describer")
	}
	target := d.Target()
	if target == "" {
		t.Fatal("Target is empty")
	}
	for _, secret := range s.h.Secrets {
		if secret != "" && strings.Contains(target, secret) {
			t.Fatalf("Target %q contains the secret %q", target, secret)
		}
	}
	t.Logf("target %q", target)
}

// failing runs op, which must fail within Timeout+Slack with one of classes.
func (s *suite) failing(t *testing.T, what string, op func(context.Context) error, classes ...errclass.Class) {
	t.Helper()
	bound := s.h.Timeout + s.h.Slack
	// The context's deadline is only a safety net far beyond the bound: the
	// driver's own timeout has to end the operation.
	ctx, cancel := context.WithTimeout(t.Context(), 2*bound+10*time.Second)
	defer cancel()
	start := s.h.Clock()
	err := op(ctx)
	took := s.h.Clock().Sub(start)
	switch {
	case err == nil:
		t.Errorf("%s succeeded; want a failure", what)
	case !slices.Contains(classes, errclass.Of(err)):
		t.Errorf("%s: class %q (%v), want one of %q", what, errclass.Of(err), err, classes)
	}
	if took > bound {
		t.Errorf("%s took %v, want at most %v (Timeout %v + Slack %v)", what, took, bound, s.h.Timeout, s.h.Slack)
	}
	t.Logf("%s: %v after %v", what, err, took.Round(time.Millisecond))
}

// recovers retries a read of key, then an insert of a new key, until each
// succeeds, within Recovery. The insert is retried too: bytes a delay held
// back are still delivered late after it ends, and on a multiplexed
// connection (etcd's gRPC) a write right behind them timed out once in CI
// after the read had already succeeded. Each retry inserts a key of its
// own, since a timed-out insert may still have been applied.
func (s *suite) recovers(t *testing.T, db driver.DB, table, key string) {
	t.Helper()
	start := time.Now()
	retry := func(what string, op func(ctx context.Context, attempt int) error) {
		t.Helper()
		for attempt := 0; ; attempt++ {
			ctx, cancel := context.WithTimeout(t.Context(), s.h.Timeout+s.h.Slack)
			err := op(ctx, attempt)
			cancel()
			if err == nil {
				t.Logf("%s recovered after %v", what, time.Since(start).Round(time.Millisecond))
				return
			}
			if time.Since(start) > s.h.Recovery {
				t.Fatalf("%s still fails %v after the fault ended (Recovery): %v", what, s.h.Recovery, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	retry("Read", func(ctx context.Context, _ int) error {
		_, err := db.Read(ctx, table, key, nil)
		return err
	})
	after := ""
	retry("Insert", func(ctx context.Context, attempt int) error {
		after = fmt.Sprintf("%s-after%d", key, attempt)
		return db.Insert(ctx, table, after, s.record(after, "v"))
	})
	s.check(t, db, table, after, nil, s.record(after, "v"))
}

func (s *suite) outage(t *testing.T, db driver.DB, table string) {
	o := s.h.Outage
	if o == nil {
		t.Skip("no Harness.Outage")
	}
	s.insert(t, db, table, "user1", s.record("user1", "v"))
	s.check(t, db, table, "user1", nil, s.record("user1", "v"))

	if err := o.Down(); err != nil {
		t.Fatalf("Outage.Down: %v", err)
	}
	up := sync.OnceValue(o.Up)
	t.Cleanup(func() { up() }) // heal the server for later tests also on failure
	failing := []errclass.Class{errclass.Unavailable, errclass.Timeout}
	s.failing(t, "Read during outage", func(ctx context.Context) error {
		_, err := db.Read(ctx, table, "user1", nil)
		return err
	}, failing...)
	s.failing(t, "Insert during outage", func(ctx context.Context) error {
		return db.Insert(ctx, table, "user2", s.record("user2", "v"))
	}, failing...)
	s.failing(t, "Scan during outage", func(ctx context.Context) error {
		_, err := db.Scan(ctx, table, "user1", 2, nil)
		if errors.Is(err, errors.ErrUnsupported) {
			return errclass.Wrap(errclass.Unavailable, err) // nothing to check
		}
		return err
	}, failing...)

	if err := up(); err != nil {
		t.Fatalf("Outage.Up: %v", err)
	}
	s.recovers(t, db, table, "user1")
}

func (s *suite) latency(t *testing.T, db driver.DB, table string) {
	d, ok := s.h.Outage.(Delayer)
	if !ok {
		t.Skip("Harness.Outage cannot add latency (no Delayer)")
	}
	s.insert(t, db, table, "user1", s.record("user1", "v"))
	// Each direction is delayed by Timeout, so a round trip takes 2·Timeout.
	d.Delay(s.h.Timeout)
	undo := sync.OnceFunc(func() { d.Delay(0) })
	t.Cleanup(undo)
	s.failing(t, "Read slower than the timeout", func(ctx context.Context) error {
		_, err := db.Read(ctx, table, "user1", nil)
		return err
	}, errclass.Timeout)
	undo()
	s.recovers(t, db, table, "user1")
}

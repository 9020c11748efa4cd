// Package pebble is the default embedded store: CockroachDB's Pebble LSM
// engine in a local directory.
//
// Properties:
//
//	pebble.dir      data directory (default: the run's scratch directory)
//	pebble.sync     fsync every write (default false)
//	pebble.cachemb  block cache size in MiB (default 64)
//
// A record is one key, table + "/" + key (table names may not contain '/'),
// whose value holds all fields (see encode.go).
package pebble

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// Property names.
const (
	PropDir     = "pebble.dir"
	PropSync    = "pebble.sync"
	PropCacheMB = "pebble.cachemb"
)

const modulePath = "github.com/cockroachdb/pebble"

// goModVersion is the Pebble version in go.mod, reported when the binary
// carries no module list (test binaries do not); a test keeps it in step.
const goModVersion = "v1.1.5"

// stripes serialise the read-modify-write of Update against other writes of
// the same key; more stripes than clients keeps unrelated keys apart.
const stripes = 256

// DB is a Pebble database. It is safe for concurrent use, also of Close with
// operations still in flight: Pebble panics on a closed DB, so operations
// hold a read lock that Close waits for, and fail as unavailable after it.
type DB struct {
	db     *pebble.DB
	dir    string
	wo     *pebble.WriteOptions
	seed   maphash.Seed
	locks  [stripes]sync.Mutex
	live   sync.RWMutex // read-held by operations, write-held by Close
	closed bool         // under live
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.BatchInserter = (*DB)(nil)
	_ driver.Resetter      = (*DB)(nil)
	_ driver.Versioner     = (*DB)(nil)
	_ driver.Describer     = (*DB)(nil)
)

// Open reads the pebble.* properties and opens (creating if needed) the
// database directory.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	p := cfg.Props
	if p == nil {
		p = spec.NewProps()
	}
	dir := p.String(PropDir, "")
	if dir == "" {
		if cfg.Dir == "" {
			return nil, fmt.Errorf("pebble: no data directory: set property %s", PropDir)
		}
		dir = filepath.Join(cfg.Dir, "pebble")
	}
	syncWrites, err := p.Bool(PropSync, false)
	if err != nil {
		return nil, err
	}
	cacheMB, err := p.IntMin(PropCacheMB, 64, 0)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pebble: %s=%q: %w", PropDir, dir, err)
	}
	cache := pebble.NewCache(cacheMB << 20)
	defer cache.Unref() // the DB holds its own reference
	pdb, err := pebble.Open(dir, &pebble.Options{Cache: cache, Logger: quietLogger{}})
	if err != nil {
		return nil, errclass.Wrap(errclass.Unavailable, fmt.Errorf("pebble: open %s: %w", dir, err))
	}
	wo := pebble.NoSync
	if syncWrites {
		wo = pebble.Sync
	}
	return &DB{db: pdb, dir: dir, wo: wo, seed: maphash.MakeSeed()}, nil
}

// quietLogger drops Pebble's informational messages, which would interleave
// with dbrig's console; fatal ones still stop the process as Pebble expects.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)              {}
func (quietLogger) Fatalf(format string, args ...any) { pebble.DefaultLogger.Fatalf(format, args...) }

var errClosed = errclass.Wrap(errclass.Unavailable, errors.New("pebble: database is closed"))

// begin checks what every operation needs before it touches Pebble and, on
// success, holds the DB open until the operation calls end.
func (d *DB) begin(ctx context.Context, table string) error {
	if strings.IndexByte(table, '/') >= 0 {
		return fmt.Errorf("pebble: table name %q: expected no '/'", table)
	}
	if err := ctx.Err(); err != nil {
		return classifyCtx(err)
	}
	d.live.RLock()
	if d.closed {
		d.live.RUnlock()
		return errClosed
	}
	return nil
}

func (d *DB) end() { d.live.RUnlock() }

func classifyCtx(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return errclass.Wrap(errclass.Timeout, fmt.Errorf("pebble: %w", err))
	}
	return fmt.Errorf("pebble: %w", err)
}

func dbKey(table, key string) []byte {
	b := make([]byte, 0, len(table)+1+len(key))
	b = append(b, table...)
	b = append(b, '/')
	return append(b, key...)
}

func (d *DB) lock(key []byte) *sync.Mutex {
	return &d.locks[maphash.Bytes(d.seed, key)%stripes]
}

func notFound(table, key string) error {
	return fmt.Errorf("pebble: %s/%s: %w", table, key, errclass.ErrNotFound)
}

func wrap(op string, err error) error {
	if errors.Is(err, pebble.ErrClosed) {
		return errclass.Wrap(errclass.Unavailable, fmt.Errorf("pebble: %s: %w", op, err))
	}
	return fmt.Errorf("pebble: %s: %w", op, err)
}

// Read returns the selected fields (all when fields is nil).
func (d *DB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	if err := d.begin(ctx, table); err != nil {
		return nil, err
	}
	defer d.end()
	v, closer, err := d.db.Get(dbKey(table, key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, notFound(table, key)
	}
	if err != nil {
		return nil, wrap("read", err)
	}
	defer closer.Close()
	r, err := decode(v, fields)
	if err != nil {
		return nil, wrap("read "+table+"/"+key, err)
	}
	return r, nil
}

// Scan returns up to n records in key order from startKey on, within table.
func (d *DB) Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]driver.Record, error) {
	if err := d.begin(ctx, table); err != nil {
		return nil, err
	}
	defer d.end()
	if n <= 0 {
		return nil, nil
	}
	upper := append([]byte(table), '/'+1) // just past every key of table
	it, err := d.db.NewIter(&pebble.IterOptions{LowerBound: dbKey(table, startKey), UpperBound: upper})
	if err != nil {
		return nil, wrap("scan", err)
	}
	out := make([]driver.Record, 0, min(n, 1024))
	for ok := it.First(); ok && len(out) < n; ok = it.Next() {
		r, err := decode(it.Value(), fields)
		if err != nil {
			it.Close()
			return nil, wrap("scan "+string(it.Key()), err)
		}
		out = append(out, r)
	}
	if err := it.Close(); err != nil {
		return nil, wrap("scan", err)
	}
	return out, nil
}

// Update merges values into an existing record (read-modify-write under the
// key's stripe lock).
func (d *DB) Update(ctx context.Context, table, key string, values driver.Record) error {
	if err := d.begin(ctx, table); err != nil {
		return err
	}
	defer d.end()
	k := dbKey(table, key)
	mu := d.lock(k)
	mu.Lock()
	defer mu.Unlock()
	old, closer, err := d.db.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return notFound(table, key)
	}
	if err != nil {
		return wrap("update", err)
	}
	v, err := merge(old, values)
	closer.Close()
	if err != nil {
		return wrap("update "+table+"/"+key, err)
	}
	if err := d.db.Set(k, v, d.wo); err != nil {
		return wrap("update", err)
	}
	return nil
}

// Insert writes a record, replacing one that exists under key.
func (d *DB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	if err := d.begin(ctx, table); err != nil {
		return err
	}
	defer d.end()
	k := dbKey(table, key)
	mu := d.lock(k)
	mu.Lock()
	defer mu.Unlock()
	if err := d.db.Set(k, encode(values), d.wo); err != nil {
		return wrap("insert", err)
	}
	return nil
}

// Delete removes a record; a missing one is ErrNotFound, which costs a Get
// because a Pebble delete does not tell.
func (d *DB) Delete(ctx context.Context, table, key string) error {
	if err := d.begin(ctx, table); err != nil {
		return err
	}
	defer d.end()
	k := dbKey(table, key)
	mu := d.lock(k)
	mu.Lock()
	defer mu.Unlock()
	_, closer, err := d.db.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return notFound(table, key)
	}
	if err != nil {
		return wrap("delete", err)
	}
	closer.Close()
	if err := d.db.Delete(k, d.wo); err != nil {
		return wrap("delete", err)
	}
	return nil
}

// InsertBatch writes all records in one atomic Pebble batch. It takes no
// stripe locks: a load does not race updates of the keys it is creating.
func (d *DB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	if err := d.begin(ctx, table); err != nil {
		return err
	}
	defer d.end()
	if len(keys) != len(values) {
		return fmt.Errorf("pebble: InsertBatch: %d keys but %d records", len(keys), len(values))
	}
	b := d.db.NewBatch()
	defer b.Close()
	var kb, vb []byte
	for i, key := range keys {
		kb = append(append(append(kb[:0], table...), '/'), key...)
		vb = vb[:0]
		for f, v := range values[i] {
			vb = appendField(vb, f, v)
		}
		if err := b.Set(kb, vb, nil); err != nil { // Set copies kb and vb
			return wrap("insert batch", err)
		}
	}
	if err := b.Commit(d.wo); err != nil {
		return wrap("insert batch", err)
	}
	return nil
}

// Reset deletes every record and compacts the range away, so a fresh load
// does not read through tombstones.
func (d *DB) Reset(ctx context.Context) error {
	if err := d.begin(ctx, ""); err != nil {
		return err
	}
	defer d.end()
	it, err := d.db.NewIter(nil)
	if err != nil {
		return wrap("reset", err)
	}
	var first, last []byte
	if it.First() {
		first = bytes.Clone(it.Key())
		it.Last()
		last = append(bytes.Clone(it.Key()), 0) // DeleteRange's end is exclusive
	}
	if err := it.Close(); err != nil {
		return wrap("reset", err)
	}
	if first == nil {
		return nil
	}
	if err := d.db.DeleteRange(first, last, d.wo); err != nil {
		return wrap("reset", err)
	}
	if err := d.db.Compact(first, last, true); err != nil {
		return wrap("reset: compact", err)
	}
	return nil
}

// ServerVersion reports the Pebble module version this binary was built with.
func (d *DB) ServerVersion(ctx context.Context) (string, error) {
	return Version(), nil
}

// Version is the Pebble module's "vX.Y.Z" from the build information, or
// from go.mod when the binary carries none.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == modulePath {
				if m.Replace != nil {
					m = m.Replace
				}
				return m.Version
			}
		}
	}
	return goModVersion
}

// Target is the data directory.
func (d *DB) Target() string { return "pebble:" + d.dir }

// Close waits for operations in flight, then closes the database; later
// calls fail as unavailable.
func (d *DB) Close() error {
	d.live.Lock()
	defer d.live.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	if err := d.db.Close(); err != nil {
		return fmt.Errorf("pebble: close: %w", err)
	}
	return nil
}

// Package hazelcast benchmarks a Hazelcast cluster through the official Go
// client (github.com/hazelcast/hazelcast-go-client).
//
// Layout: one IMap per table, named "<prefix><table>"; the map key is the
// record key (a string), the value is a byte array holding all fields in the
// compact length-prefixed encoding of driver/internal/fieldcodec.
//
// Cost of each operation: Read is one Get. Insert is one Set (it overwrites,
// as YCSB's inserts do). Delete is one Remove, which returns the old value so
// a missing key can be told apart. Update merges fields without server-side
// code (an EntryProcessor needs Java classes on the members): a Get, then a
// ReplaceIfSame(old, merged) that only writes if nobody changed the record
// meanwhile; that is two round trips and the old value sent back once, and a
// lost race is reported as a conflict (errclass.Conflict), not retried.
// InsertBatch is PutAll in chunks of hazelcast.batchsize entries, which the
// client groups per member.
//
// Scan: IMap keys are hashed over partitions, there is no key order to walk.
// By default Scan fails with an error wrapping errors.ErrUnsupported, so a
// workload with scans fails loudly instead of measuring something else. With
// hazelcast.scan=index the driver adds a sorted index on __key to the map and
// runs the range predicate "__key >= startKey" on it: every member returns all
// matching keys (cost grows with the number of records after startKey, not
// with n), the driver sorts them, keeps the first n and fetches their values
// with GetAll. The server compares keys as Java strings (UTF-16 order), which
// agrees with bytewise order for keys below U+D800 (all ASCII keys).
//
// With smart routing (the default) the client connects to every member and
// sends each operation to the member owning the key's partition, so the run
// uses all members; hazelcast.smart=false sends everything through one
// connection to one of hazelcast.addrs (the members forward), as behind a
// load balancer or proxy.
//
// Properties:
//
//	hazelcast.addrs        comma-separated host:port of members (default 127.0.0.1:5701)
//	hazelcast.cluster      cluster name (default "dbrig")
//	hazelcast.prefix       IMap name prefix, never empty (default "dbrig."); Reset destroys
//	                       every map whose name starts with it
//	hazelcast.timeout      per-operation timeout (default 5s)
//	hazelcast.dialtimeout  connection timeout, also bounds Open (default 5s)
//	hazelcast.batchsize    entries per PutAll in InsertBatch, 1..100000 (default 1000)
//	hazelcast.smart        true (default): smart routing; false: unisocket
//	hazelcast.scan         none (default): Scan is unsupported; index: see above
//	hazelcast.username, hazelcast.password   credentials when security is enabled
//
// Example:
//
//	dbrig run -P workloads/workloada --driver hazelcast \
//	    -p hazelcast.addrs=127.0.0.1:15701,127.0.0.1:15702,127.0.0.1:15703
package hazelcast

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	hz "github.com/hazelcast/hazelcast-go-client"
	"github.com/hazelcast/hazelcast-go-client/cluster"
	"github.com/hazelcast/hazelcast-go-client/logger"
	"github.com/hazelcast/hazelcast-go-client/predicate"
	"github.com/hazelcast/hazelcast-go-client/types"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/drvkit"
	"github.com/dbrig/dbrig/driver/internal/fieldcodec"
	"github.com/dbrig/dbrig/errclass"
)

const mapService = "hz:impl:mapService"

// DB is a Hazelcast cluster seen through one client. Safe for concurrent use.
type DB struct {
	cli       *hz.Client
	addrs     []string
	prefix    string
	timeout   time.Duration
	batchSize int
	scanIndex bool

	mu      sync.Mutex
	maps    map[string]*hz.Map                // by table
	indexed map[string]bool                   // tables whose map has the __key index
	members map[types.UUID]cluster.MemberInfo // the client's view of the cluster
	online  bool                              // connected to the cluster

	beforeReplace func() // test hook: runs between Update's read and its write
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.BatchInserter = (*DB)(nil)
	_ driver.Resetter      = (*DB)(nil)
	_ driver.Versioner     = (*DB)(nil)
	_ driver.Describer     = (*DB)(nil)
)

// Open reads the hazelcast.* properties and connects; it fails when no
// member answers within hazelcast.dialtimeout.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	return open(ctx, cfg)
}

func open(ctx context.Context, cfg driver.Config) (*DB, error) {
	p := cfg.Props
	addrs, err := drvkit.HostPorts(p, "hazelcast.addrs", "127.0.0.1:5701")
	if err != nil {
		return nil, err
	}
	db := &DB{
		addrs: addrs, prefix: p.String("hazelcast.prefix", "dbrig."),
		maps: map[string]*hz.Map{}, indexed: map[string]bool{}, members: map[types.UUID]cluster.MemberInfo{},
	}
	if db.prefix == "" {
		return nil, p.Errorf("hazelcast.prefix", "a non-empty map name prefix (Reset destroys every map under it)")
	}
	clusterName := p.String("hazelcast.cluster", "dbrig")
	if clusterName == "" {
		return nil, p.Errorf("hazelcast.cluster", "a non-empty cluster name")
	}
	if db.timeout, err = drvkit.Positive(p, "hazelcast.timeout", 5*time.Second); err != nil {
		return nil, err
	}
	dialTimeout, err := drvkit.Positive(p, "hazelcast.dialtimeout", 5*time.Second)
	if err != nil {
		return nil, err
	}
	bs, err := p.IntMin("hazelcast.batchsize", 1000, 1)
	if err != nil {
		return nil, err
	}
	if bs > 100000 {
		return nil, p.Errorf("hazelcast.batchsize", "an integer from 1 to 100000")
	}
	db.batchSize = int(bs)
	smart, err := p.Bool("hazelcast.smart", true)
	if err != nil {
		return nil, err
	}
	scan, err := p.Choice("hazelcast.scan", "none", "index")
	if err != nil {
		return nil, err
	}
	db.scanIndex = scan == "index"
	user, pass := p.String("hazelcast.username", ""), p.String("hazelcast.password", "")

	hc := hz.NewConfig()
	hc.Cluster.Name = clusterName
	hc.Cluster.Network.SetAddresses(addrs...)
	hc.Cluster.Network.ConnectionTimeout = types.Duration(dialTimeout)
	hc.Cluster.Unisocket = !smart
	hc.Cluster.InvocationTimeout = types.Duration(db.timeout)
	// Reconnect quickly after an outage (the default backoff grows to 30 s)
	// and keep trying for as long as the run lasts.
	hc.Cluster.ConnectionStrategy.Retry = cluster.ConnectionRetryConfig{
		InitialBackoff: types.Duration(100 * time.Millisecond),
		MaxBackoff:     types.Duration(time.Second),
		Multiplier:     1.5,
		Jitter:         0.2,
	}
	if user != "" {
		hc.Cluster.Security.Credentials.Username = user
		hc.Cluster.Security.Credentials.Password = pass
	}
	// The client logs every failed reconnect; errors reach the run through
	// return values instead.
	hc.Logger.Level = logger.OffLevel
	hc.Stats.Enabled = false
	// Listeners set before the start also see the initial member list.
	hc.AddMembershipListener(db.membershipChanged)
	hc.AddLifecycleListener(db.lifecycleChanged)

	cctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	cli, err := hz.StartNewClientWithConfig(cctx, hc)
	if err != nil {
		err = fmt.Errorf("hazelcast: connecting to cluster %q at %s: %w", clusterName, strings.Join(addrs, ","), err)
		return nil, errclass.Wrap(errclass.Unavailable, err)
	}
	db.cli = cli
	// The member list reaches the listener asynchronously after the start;
	// wait for it so that ServerVersion and Members work at once.
	for len(db.Members()) == 0 {
		if cctx.Err() != nil {
			cli.Shutdown(context.Background())
			return nil, errclass.Wrap(errclass.Unavailable, fmt.Errorf("hazelcast: cluster %q sent no member list: %w", clusterName, cctx.Err()))
		}
		time.Sleep(5 * time.Millisecond)
	}
	return db, nil
}

// imap returns the table's map proxy, created once per table.
func (db *DB) imap(ctx context.Context, table string) (*hz.Map, error) {
	db.mu.Lock()
	m := db.maps[table]
	db.mu.Unlock()
	if m != nil {
		return m, nil
	}
	m, err := db.cli.GetMap(ctx, db.prefix+table)
	if err != nil {
		return nil, db.classify(fmt.Errorf("hazelcast map %s%s: %w", db.prefix, table, err))
	}
	db.mu.Lock()
	db.maps[table] = m
	db.mu.Unlock()
	return m, nil
}

// begin applies the per-operation timeout and finds the table's map.
func (db *DB) begin(ctx context.Context, table string) (context.Context, context.CancelFunc, *hz.Map, error) {
	ctx, cancel := context.WithTimeout(ctx, db.timeout)
	m, err := db.imap(ctx, table)
	if err != nil {
		cancel()
		return nil, nil, nil, err
	}
	return ctx, cancel, m, nil
}

func value(v any) ([]byte, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("value is a %T, not a dbrig record (byte array)", v)
	}
	return b, nil
}

// Read returns the named fields of one record.
func (db *DB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	ctx, cancel, m, err := db.begin(ctx, table)
	if err != nil {
		return nil, err
	}
	defer cancel()
	v, err := m.Get(ctx, key)
	if err != nil {
		return nil, db.classify(fmt.Errorf("hazelcast read %s/%s: %w", table, key, err))
	}
	if v == nil {
		return nil, fmt.Errorf("hazelcast read %s/%s: %w", table, key, errclass.ErrNotFound)
	}
	b, err := value(v)
	if err == nil {
		var rec driver.Record
		if rec, err = fieldcodec.Decode(b, fields); err == nil {
			return rec, nil
		}
	}
	return nil, fmt.Errorf("hazelcast read %s/%s: %w", table, key, err)
}

// errNoScan is why Scan fails with hazelcast.scan=none.
var errNoScan = fmt.Errorf("IMap keys are hashed, not ordered: Scan needs hazelcast.scan=index (a sorted-index range query whose cost grows with the records after startKey): %w", errors.ErrUnsupported)

// CanServe implements driver.Capable: Scan only with hazelcast.scan=index.
func (db *DB) CanServe(method string) error {
	if method == driver.MethodScan && !db.scanIndex {
		return errNoScan
	}
	return nil
}

// Scan returns up to n records in key order from startKey on; see the
// package comment for what it costs and when it is supported.
func (db *DB) Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]driver.Record, error) {
	if !db.scanIndex {
		return nil, fmt.Errorf("hazelcast scan %s: %w", table, errNoScan)
	}
	if n <= 0 {
		return nil, nil
	}
	ctx, cancel, m, err := db.begin(ctx, table)
	if err != nil {
		return nil, err
	}
	defer cancel()
	if err := db.ensureIndex(ctx, table, m); err != nil {
		return nil, err
	}
	ks, err := m.GetKeySetWithPredicate(ctx, predicate.GreaterOrEqual("__key", startKey))
	if err != nil {
		return nil, db.classify(fmt.Errorf("hazelcast scan %s from %s: keys: %w", table, startKey, err))
	}
	keys := make([]string, 0, len(ks))
	for _, k := range ks {
		if s, ok := k.(string); ok && s >= startKey {
			keys = append(keys, s)
		}
	}
	slices.Sort(keys)
	keys = keys[:min(n, len(keys))]
	if len(keys) == 0 {
		return nil, nil
	}
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	entries, err := m.GetAll(ctx, args...)
	if err != nil {
		return nil, db.classify(fmt.Errorf("hazelcast scan %s from %s: values: %w", table, startKey, err))
	}
	byKey := make(map[string][]byte, len(entries))
	for _, e := range entries {
		k, _ := e.Key.(string)
		if byKey[k], err = value(e.Value); err != nil {
			return nil, fmt.Errorf("hazelcast scan %s: key %s: %w", table, k, err)
		}
	}
	recs := make([]driver.Record, 0, len(keys))
	for _, k := range keys {
		b, ok := byKey[k]
		if !ok {
			continue // deleted between the two requests
		}
		rec, err := fieldcodec.Decode(b, fields)
		if err != nil {
			return nil, fmt.Errorf("hazelcast scan %s: key %s: %w", table, k, err)
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// ensureIndex adds the sorted __key index once per table (adding an existing
// index is a no-op on the members, so several clients may race).
func (db *DB) ensureIndex(ctx context.Context, table string, m *hz.Map) error {
	db.mu.Lock()
	done := db.indexed[table]
	db.mu.Unlock()
	if done {
		return nil
	}
	err := m.AddIndex(ctx, types.IndexConfig{Name: "dbrig_key", Type: types.IndexTypeSorted, Attributes: []string{"__key"}})
	if err != nil {
		return db.classify(fmt.Errorf("hazelcast scan %s: adding the __key index: %w", table, err))
	}
	db.mu.Lock()
	db.indexed[table] = true
	db.mu.Unlock()
	return nil
}

// Update merges values into an existing record; see the package comment for
// its cost and conflict behaviour.
func (db *DB) Update(ctx context.Context, table, key string, values driver.Record) error {
	ctx, cancel, m, err := db.begin(ctx, table)
	if err != nil {
		return err
	}
	defer cancel()
	v, err := m.Get(ctx, key)
	if err != nil {
		return db.classify(fmt.Errorf("hazelcast update %s/%s: read: %w", table, key, err))
	}
	if v == nil {
		return fmt.Errorf("hazelcast update %s/%s: %w", table, key, errclass.ErrNotFound)
	}
	old, err := value(v)
	if err != nil {
		return fmt.Errorf("hazelcast update %s/%s: %w", table, key, err)
	}
	merged, err := fieldcodec.Merge(old, values)
	if err != nil {
		return fmt.Errorf("hazelcast update %s/%s: %w", table, key, err)
	}
	if db.beforeReplace != nil {
		db.beforeReplace()
	}
	ok, err := m.ReplaceIfSame(ctx, key, old, merged)
	if err != nil {
		return db.classify(fmt.Errorf("hazelcast update %s/%s: %w", table, key, err))
	}
	if !ok {
		return errclass.Wrap(errclass.Conflict, fmt.Errorf("hazelcast update %s/%s: %w", table, key, errclass.ErrConflict))
	}
	return nil
}

// Insert writes a record (overwriting one with the same key).
func (db *DB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	ctx, cancel, m, err := db.begin(ctx, table)
	if err != nil {
		return err
	}
	defer cancel()
	if err := m.Set(ctx, key, fieldcodec.Encode(values)); err != nil {
		return db.classify(fmt.Errorf("hazelcast insert %s/%s: %w", table, key, err))
	}
	return nil
}

// InsertBatch writes records with PutAll, hazelcast.batchsize at a time.
// PutAll is not atomic: after an error some records may be written.
func (db *DB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	if len(keys) != len(values) {
		return fmt.Errorf("hazelcast insert batch %s: %d keys but %d records", table, len(keys), len(values))
	}
	entries := make([]types.Entry, 0, min(len(keys), db.batchSize))
	for start := 0; start < len(keys); start += db.batchSize {
		end := min(start+db.batchSize, len(keys))
		entries = entries[:0]
		for i := start; i < end; i++ {
			entries = append(entries, types.Entry{Key: keys[i], Value: fieldcodec.Encode(values[i])})
		}
		if err := db.putAll(ctx, table, entries); err != nil {
			return fmt.Errorf("hazelcast insert batch %s (keys %s..%s): %w", table, keys[start], keys[end-1], err)
		}
	}
	return nil
}

func (db *DB) putAll(ctx context.Context, table string, entries []types.Entry) error {
	ctx, cancel, m, err := db.begin(ctx, table)
	if err != nil {
		return err
	}
	defer cancel()
	return db.classify(m.PutAll(ctx, entries...))
}

// Delete removes one record.
func (db *DB) Delete(ctx context.Context, table, key string) error {
	ctx, cancel, m, err := db.begin(ctx, table)
	if err != nil {
		return err
	}
	defer cancel()
	v, err := m.Remove(ctx, key)
	if err != nil {
		return db.classify(fmt.Errorf("hazelcast delete %s/%s: %w", table, key, err))
	}
	if v == nil {
		return fmt.Errorf("hazelcast delete %s/%s: %w", table, key, errclass.ErrNotFound)
	}
	return nil
}

// Reset destroys every map whose name starts with hazelcast.prefix.
func (db *DB) Reset(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, max(db.timeout, time.Minute))
	defer cancel()
	infos, err := db.cli.GetDistributedObjectsInfo(ctx)
	if err != nil {
		return db.classify(fmt.Errorf("hazelcast reset: listing maps: %w", err))
	}
	for _, info := range infos {
		if info.ServiceName != mapService || !strings.HasPrefix(info.Name, db.prefix) {
			continue
		}
		m, err := db.cli.GetMap(ctx, info.Name)
		if err == nil {
			err = m.Destroy(ctx)
		}
		if err != nil {
			return db.classify(fmt.Errorf("hazelcast reset: destroying map %s: %w", info.Name, err))
		}
	}
	db.mu.Lock()
	clear(db.maps)
	clear(db.indexed)
	db.mu.Unlock()
	return nil
}

func (db *DB) membershipChanged(e cluster.MembershipStateChanged) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if e.State == cluster.MembershipStateRemoved {
		delete(db.members, e.Member.UUID)
	} else {
		db.members[e.Member.UUID] = e.Member
	}
}

func (db *DB) lifecycleChanged(e hz.LifecycleStateChanged) {
	db.mu.Lock()
	defer db.mu.Unlock()
	switch e.State {
	case hz.LifecycleStateConnected:
		db.online = true
	case hz.LifecycleStateDisconnected, hz.LifecycleStateShutDown:
		db.online = false
	}
}

// connected tells whether the client is connected to the cluster.
func (db *DB) connected() bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.online
}

// Member is one cluster member as the client sees it.
type Member struct {
	Address string
	Version string
}

// Members lists the cluster's members, as the cluster last told the client,
// ordered by address.
func (db *DB) Members() []Member {
	db.mu.Lock()
	out := make([]Member, 0, len(db.members))
	for _, m := range db.members {
		out = append(out, Member{Address: m.Address.String(), Version: m.Version.String()})
	}
	db.mu.Unlock()
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.Address, b.Address) })
	return out
}

// ServerVersion is the members' version as the client learned it when it
// joined (e.g. "5.5.0"); mixed versions are listed in member order.
func (db *DB) ServerVersion(ctx context.Context) (string, error) {
	var vs []string
	for _, m := range db.Members() {
		if !slices.Contains(vs, m.Version) {
			vs = append(vs, m.Version)
		}
	}
	if len(vs) == 0 {
		return "", errclass.Wrap(errclass.Unavailable, errors.New("hazelcast: the client knows no cluster member"))
	}
	return strings.Join(vs, ","), nil
}

// Target names the addresses (credentials are never part of it).
func (db *DB) Target() string { return "hazelcast://" + strings.Join(db.addrs, ",") }

// Close shuts the client down.
func (db *DB) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), db.timeout)
	defer cancel()
	return db.cli.Shutdown(ctx)
}

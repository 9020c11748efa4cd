// Package cassandra benchmarks Apache Cassandra through the Apache Go
// driver (github.com/apache/cassandra-gocql-driver/v2), the way YCSB's
// cassandra-cql binding does.
//
// Layout: YCSB's. A keyspace (cassandra.keyspace, created when absent with
// SimpleStrategy and cassandra.replicationfactor) holds one table per YCSB
// table: y_id varchar PRIMARY KEY and the fields field0..N as blobs (values
// are arbitrary bytes). Open creates the run's table (property table) when
// absent, with fieldcount and fieldnameprefix.
//
// Every statement is prepared (the driver caches them) and routed
// token-aware: to a replica of the key, so the coordinator is a replica
// (tokenAware: nodes told apart by host ID, as on 127.0.0.1 they must be).
// Nodes given in hosts behind proxies (dbrig's fault proxies) are reached
// through them: the ring's own addresses are mapped to the hosts given
// (behindProxies), so a client-link fault reaches every node.
// Read and Scan use cassandra.readconsistencylevel, writes
// cassandra.writeconsistencylevel (both QUORUM by default, as YCSB's;
// cassandra.consistencylevel sets both at once).
//
// Cost of each operation: Read, Insert, Update and Delete are one request.
// Like YCSB's binding, Update and Delete are blind by default (an Update of
// a missing key writes it, a Delete of one does nothing); with
// cassandra.ifexists=true they carry IF EXISTS, a lightweight transaction
// (Paxos, four round trips between replicas) that reports a missing key as
// not found. InsertBatch (the load) groups the records by the replicas
// that hold them (the token ring of the routing policy) and sends each group
// as UNLOGGED batches of up to cassandra.loadbatch records (and under
// Cassandra's 5 KiB batch warning), each to a replica of its records, at most
// cassandra.loadinflight requests at once across all the loaders. A batch of
// one replica set costs its coordinator no forwarding, and fewer requests per
// record is what raises a saturated node's load rate
// (docs/measurements/cassandra.md). cassandra.loadbatch=1 sends one insert
// per record.
//
// Scan is YCSB's: SELECT ... WHERE token(y_id) >= token(start) LIMIT n.
// Records come in token order, which is not key order (the partitioner
// hashes keys), so a scan reads n records near start's token, as YCSB's
// does. cassandra.scan=none makes Scan fail with errors.ErrUnsupported.
//
// Example:
//
//	dbrig run -P workloads/workloada --driver cassandra \
//	    -p hosts=127.0.0.1:19042,127.0.0.1:19043 -p cassandra.readconsistencylevel=ONE
package cassandra

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// levelNames are the consistency levels a property may name.
const levelNames = "ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, LOCAL_ONE"

// DB is a Cassandra cluster seen through one session. Safe for concurrent use.
type DB struct {
	sess          *gocql.Session
	hosts         []string
	user          string
	keyspace      string
	read, write   gocql.Consistency
	fields        []string // field0..N
	rf            int
	nodes         int // in the ring when the DB opened
	scan, ifExist bool
	load          chan struct{} // a slot per load request in flight (cassandra.loadinflight)
	batch         int           // records per load batch at most (cassandra.loadbatch)
	policy        *tokenAware   // the ring, to group the load by replicas; nil without discovery

	mu     sync.Mutex
	tables map[string]bool // created (or found) in this session
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.BatchInserter = (*DB)(nil)
	_ driver.Resetter      = (*DB)(nil)
	_ driver.Versioner     = (*DB)(nil)
	_ driver.Describer     = (*DB)(nil)
	_ driver.Preloaded     = (*DB)(nil)
)

// identifier is an unquoted CQL name that Cassandra keeps as it is (a
// keyspace or table name: at most 48 characters).
var identifier = regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)

// ParseLevel reads a consistency level by its CQL name, any case.
func ParseLevel(s string) (gocql.Consistency, bool) {
	name := strings.ToUpper(strings.TrimSpace(s))
	for _, n := range strings.Split(levelNames, ", ") {
		if n == name {
			c, err := gocql.ParseConsistencyWrapper(n)
			return c, err == nil
		}
	}
	return 0, false
}

// settings are the properties Open reads, checked before it connects.
type settings struct {
	hosts            []string
	user, pass       string
	conns            int
	connect, timeout time.Duration
	table            string
	discover         bool
}

func readSettings(p *spec.Props, db *DB) (settings, error) {
	var s settings
	port, err := p.IntMin("port", 9042, 1)
	if err != nil {
		return s, err
	}
	if port > 65535 {
		return s, p.Errorf("port", "a TCP port (1..65535)")
	}
	for _, h := range strings.Split(p.String("hosts", "127.0.0.1"), ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
				return s, p.Errorf("hosts", "a comma-separated list of host or host:port (%q: %v)", h, err)
			}
			h = net.JoinHostPort(strings.Trim(h, "[]"), strconv.FormatInt(port, 10))
		}
		s.hosts = append(s.hosts, h)
	}
	if len(s.hosts) == 0 {
		return s, p.Errorf("hosts", "a comma-separated list of host or host:port (none given)")
	}
	db.hosts = s.hosts
	db.keyspace = p.String("cassandra.keyspace", "ycsb")
	if !identifier.MatchString(db.keyspace) {
		return s, p.Errorf("cassandra.keyspace", "a keyspace name: a lower-case letter, then letters, digits or _ (at most 48)")
	}
	both := p.String("cassandra.consistencylevel", "QUORUM")
	for _, l := range []struct {
		key string
		c   *gocql.Consistency
	}{{"cassandra.consistencylevel", new(gocql.Consistency)}, {"cassandra.readconsistencylevel", &db.read}, {"cassandra.writeconsistencylevel", &db.write}} {
		c, ok := ParseLevel(p.String(l.key, both))
		if !ok {
			return s, p.Errorf(l.key, "a consistency level: one of %s", levelNames)
		}
		*l.c = c
	}
	s.user, s.pass = p.String("cassandra.username", ""), p.String("cassandra.password", "")
	conns, err := p.IntMin("cassandra.maxconnections", 2, 1)
	if err != nil {
		return s, err
	}
	s.conns = int(conns)
	ms, err := p.IntMin("cassandra.connecttimeoutmillis", 5000, 1)
	if err != nil {
		return s, err
	}
	s.connect = time.Duration(ms) * time.Millisecond
	if ms, err = p.IntMin("cassandra.readtimeoutmillis", 12000, 1); err != nil {
		return s, err
	}
	s.timeout = time.Duration(ms) * time.Millisecond
	rf, err := p.IntMin("cassandra.replicationfactor", 1, 1)
	if err != nil {
		return s, err
	}
	db.rf = int(rf)
	scan, err := p.Choice("cassandra.scan", "token", "none")
	if err != nil {
		return s, err
	}
	db.scan = scan == "token"
	if db.ifExist, err = p.Bool("cassandra.ifexists", false); err != nil {
		return s, err
	}
	if s.discover, err = p.Bool("cassandra.discover", true); err != nil {
		return s, err
	}
	// Shared by the loaders: 8 per loader, as before, made 128 in flight at
	// 16 loaders, which queued on a one-node server and loaded slower than
	// 16 (docs/measurements/cassandra.md).
	inflight, err := p.IntMin("cassandra.loadinflight", 32, 1)
	if err != nil {
		return s, err
	}
	db.load = make(chan struct{}, inflight)
	batch, err := p.IntMin("cassandra.loadbatch", 4, 1)
	if err != nil {
		return s, err
	}
	if batch > maxLoadBatch {
		return s, p.Errorf("cassandra.loadbatch", "an integer from 1 to %d (records per unlogged batch)", maxLoadBatch)
	}
	db.batch = int(batch)
	n, err := p.IntMin("fieldcount", 10, 1)
	if err != nil {
		return s, err
	}
	if n > 1000 {
		return s, p.Errorf("fieldcount", "an integer from 1 to 1000")
	}
	prefix := p.String("fieldnameprefix", "field")
	if !identifier.MatchString(prefix + "0") {
		return s, p.Errorf("fieldnameprefix", "lower-case letters, digits and _, starting with a letter (a CQL column name)")
	}
	for i := range int(n) {
		db.fields = append(db.fields, prefix+strconv.Itoa(i))
	}
	s.table = p.String("table", "usertable")
	if !identifier.MatchString(s.table) {
		return s, p.Errorf("table", "a table name: a lower-case letter, then letters, digits or _ (at most 48)")
	}
	return s, nil
}

// Open reads the properties (bad ones fail before anything connects),
// connects, makes sure the keyspace and the run's table exist, and checks
// that the cluster has at least cassandra.replicationfactor nodes.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	return open(ctx, cfg)
}

func open(ctx context.Context, cfg driver.Config) (*DB, error) {
	p := cfg.Props
	db := &DB{tables: map[string]bool{}}
	s, err := readSettings(p, db)
	if err != nil {
		return nil, err
	}
	db.user = s.user
	c := gocql.NewCluster(s.hosts...)
	c.ConnectTimeout = s.connect
	c.Timeout = s.timeout
	c.WriteTimeout = s.timeout
	c.NumConns = s.conns
	c.Consistency = db.write
	db.policy = &tokenAware{keyspace: db.keyspace}
	c.PoolConfig.HostSelectionPolicy = db.policy
	if !s.discover {
		db.policy = nil
		c.DisableInitialHostLookup = true
		c.Events.DisableTopologyEvents = true
		c.PoolConfig.HostSelectionPolicy = &hostRoundRobin{}
	}
	// Reconnect quickly to a node that comes back (a fault's end).
	c.ReconnectInterval = time.Second
	c.ReconnectionPolicy = &gocql.ConstantReconnectionPolicy{MaxRetries: 1 << 20, Interval: time.Second}
	// A node is never marked down, neither when its pool fails to fill nor
	// on the server's status events: gocql looks the host up by IP alone
	// (ring.getHostByIP), and the recipe's nodes, or nodes behind proxies,
	// share 127.0.0.1, so it marked another node than the failed one down
	// and removed its pool. A node that cannot be reached has an empty
	// pool instead: queries skip it, and each one that picks it starts a
	// refill (one at a time), so it serves again as soon as it answers.
	c.ConvictionPolicy = neverConvict{}
	c.Events.DisableNodeStatusEvents = true
	// gocql holds each request up to 200 µs to write several at once; that
	// wait is part of every operation's latency and, with few clients in a
	// closed loop, of the throughput (BenchmarkWorkloadA: 3x more ops/s at 2
	// and 4 clients, 1.2x at 16, without it).
	c.WriteCoalesceWaitTime = 0
	// With IF EXISTS, Update and Delete are Paxos writes, which the node
	// stamps itself (at millisecond resolution); an Insert stamped by the
	// client less than a millisecond before could then win over an Update
	// that follows it (the conformance suite's Concurrent case, once
	// requests were no longer held back). The node stamps every write then.
	if db.ifExist {
		c.DefaultTimestamp = false
	}
	c.RetryPolicy = nil // a failed operation counts as one failure, as in YCSB's runs
	if s.user != "" {
		c.Authenticator = gocql.PasswordAuthenticator{Username: s.user, Password: s.pass}
	}
	if s.discover {
		if m := behindProxies(ctx, c, s.hosts); len(m) > 0 {
			c.AddressTranslator = translator(m)
		}
	}
	sess, err := newSession(ctx, c, s.connect)
	if err != nil {
		return nil, errclass.Wrap(errclass.Unavailable, fmt.Errorf("cassandra: connecting to %s: %w", strings.Join(s.hosts, ","), err))
	}
	db.sess = sess
	if err := db.setUp(ctx, s.table, p); err != nil {
		sess.Close()
		return nil, err
	}
	return db, nil
}

// behindProxies maps the native address of each node reached at another
// host given (dbrig's client proxies, or any TCP proxy) to that host. The
// ring names every node by its own address, so without the map the session
// would reach all nodes but the first past their proxies. A host whose
// node does not answer, or names itself as it was given, has no entry.
func behindProxies(ctx context.Context, c *gocql.ClusterConfig, hosts []string) map[string]netip.AddrPort {
	m := map[string]netip.AddrPort{}
	for _, h := range hosts {
		given, err := netip.ParseAddrPort(h)
		if err != nil {
			continue // a name: the ring's addresses cannot be it
		}
		pc := gocql.NewCluster(h)
		pc.DisableInitialHostLookup = true
		pc.Events.DisableTopologyEvents, pc.Events.DisableSchemaEvents = true, true
		pc.NumConns = 1
		pc.ConnectTimeout, pc.Timeout = c.ConnectTimeout, c.Timeout
		pc.Authenticator = c.Authenticator
		s, err := pc.CreateSession()
		if err != nil {
			continue
		}
		var ip net.IP
		var port int
		err = s.Query("SELECT rpc_address, rpc_port FROM system.local").Consistency(gocql.One).ScanContext(ctx, &ip, &port)
		s.Close()
		own, ok := netip.AddrFromSlice(ip)
		if err != nil || !ok || port <= 0 || port > 65535 {
			continue
		}
		if a := netip.AddrPortFrom(own.Unmap(), uint16(port)); a != given {
			m[a.String()] = given
		}
	}
	return m
}

// translator maps the addresses of m to theirs.
func translator(m map[string]netip.AddrPort) gocql.AddressTranslator {
	return gocql.AddressTranslatorFunc(func(ip net.IP, port int) (net.IP, int) {
		if a, ok := netip.AddrFromSlice(ip); ok {
			if to, ok := m[netip.AddrPortFrom(a.Unmap(), uint16(port)).String()]; ok {
				return net.IP(to.Addr().AsSlice()), int(to.Port())
			}
		}
		return ip, port
	})
}

// neverConvict keeps every host up in gocql's ring (see open).
type neverConvict struct{}

func (neverConvict) AddFailure(error, *gocql.HostInfo) bool { return false }
func (neverConvict) Reset(*gocql.HostInfo)                  {}

// newSession connects within timeout (CreateSession takes no context).
func newSession(ctx context.Context, c *gocql.ClusterConfig, timeout time.Duration) (*gocql.Session, error) {
	type result struct {
		s   *gocql.Session
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := c.CreateSession()
		ch <- result{s, err}
	}()
	t := time.NewTimer(timeout + c.Timeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-ctx.Done():
	case <-t.C:
	}
	go func() {
		if r := <-ch; r.s != nil {
			r.s.Close()
		}
	}()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("no session within %v", timeout+c.Timeout)
}

// setUp checks the replication factor against the ring and creates the
// keyspace and table when absent.
func (db *DB) setUp(ctx context.Context, table string, p *spec.Props) error {
	nodes, err := db.ringSize(ctx)
	if err != nil {
		return db.classify(fmt.Errorf("cassandra: reading the ring: %w", err))
	}
	db.nodes = nodes
	if db.rf > nodes {
		return p.Errorf("cassandra.replicationfactor", "at most the cluster's %d node(s)", nodes)
	}
	q := fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d}", db.keyspace, db.rf)
	if err := db.sess.Query(q).Consistency(gocql.All).ExecContext(ctx); err != nil {
		return db.classify(fmt.Errorf("cassandra: creating keyspace %s: %w", db.keyspace, err))
	}
	return db.ensureTable(ctx, table)
}

// ringSize counts the nodes of the ring: the one answering and its peers.
// system.peers_v2 (Cassandra 4.0 on) tells nodes on one address apart by
// port; system.peers, keyed by address alone, is the fallback.
func (db *DB) ringSize(ctx context.Context) (int, error) {
	count := func(q string) (int, error) {
		n := 1
		iter := db.sess.Query(q).Consistency(gocql.One).IterContext(ctx)
		var id gocql.UUID
		for iter.Scan(&id) {
			n++
		}
		return n, iter.Close()
	}
	n, err := count("SELECT host_id FROM system.peers_v2")
	var req gocql.RequestError
	if errors.As(err, &req) && req.Code() == gocql.ErrCodeInvalid {
		return count("SELECT host_id FROM system.peers")
	}
	return n, err
}

// ensureTable creates table with YCSB's columns when this session has not
// seen it yet.
func (db *DB) ensureTable(ctx context.Context, table string) error {
	db.mu.Lock()
	done := db.tables[table]
	db.mu.Unlock()
	if done {
		return nil
	}
	if !identifier.MatchString(table) {
		return fmt.Errorf("cassandra: table %q: a lower-case letter, then letters, digits or _: %w", table, errors.ErrUnsupported)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s.%s (y_id varchar PRIMARY KEY", db.keyspace, table)
	for _, f := range db.fields {
		fmt.Fprintf(&b, ", %s blob", f)
	}
	b.WriteString(")")
	if err := db.sess.Query(b.String()).Consistency(gocql.All).ExecContext(ctx); err != nil {
		return db.classify(fmt.Errorf("cassandra: creating table %s.%s: %w", db.keyspace, table, err))
	}
	// Every node must know the table before a write reaches it (else it
	// answers INCOMPATIBLE_SCHEMA): gocql only logs a failed wait.
	if err := db.sess.AwaitSchemaAgreement(ctx); err != nil {
		return db.classify(fmt.Errorf("cassandra: nodes disagree on the schema after creating %s.%s: %w", db.keyspace, table, err))
	}
	if db.nodes > 1 {
		if err := db.probeTable(ctx, table); err != nil {
			return err
		}
	}
	db.mu.Lock()
	db.tables[table] = true
	db.mu.Unlock()
	return nil
}

// probeTable reads a few keys at ALL until every replica answers: a node
// can report the new schema version before it serves the table (it then
// answers INCOMPATIBLE_SCHEMA), and the load would fail on it.
func (db *DB) probeTable(ctx context.Context, table string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	q := "SELECT y_id FROM " + db.keyspace + "." + table + " WHERE y_id = ?"
	for i := 0; i < 16; {
		var id string
		err := db.sess.Query(q, "dbrig-probe-"+strconv.Itoa(i)).Consistency(gocql.All).ScanContext(ctx, &id)
		if err == nil || errors.Is(err, gocql.ErrNotFound) {
			i++
			continue
		}
		select {
		case <-ctx.Done():
			return db.classify(fmt.Errorf("cassandra: table %s.%s not served by every replica: %w", db.keyspace, table, err))
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

// columns are the requested fields, all of them when fields is nil; an
// unknown field is an error.
func (db *DB) columns(fields []string) ([]string, error) {
	if fields == nil {
		return db.fields, nil
	}
	for _, f := range fields {
		if !slices.Contains(db.fields, f) {
			return nil, fmt.Errorf("cassandra: unknown field %q: the table has %s … %s (properties fieldcount, fieldnameprefix)",
				f, db.fields[0], db.fields[len(db.fields)-1])
		}
	}
	return fields, nil
}

func (db *DB) selectList(cols []string) string {
	if len(cols) == 0 {
		return "y_id"
	}
	return strings.Join(cols, ", ")
}

// Read returns the named fields of one record.
func (db *DB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	if err := db.ensureTable(ctx, table); err != nil {
		return nil, err
	}
	cols, err := db.columns(fields)
	if err != nil {
		return nil, err
	}
	q := "SELECT " + db.selectList(cols) + " FROM " + db.keyspace + "." + table + " WHERE y_id = ?"
	vals := make([][]byte, len(cols))
	dest := make([]any, max(len(cols), 1))
	var id string
	if len(cols) == 0 {
		dest[0] = &id
	}
	for i := range cols {
		dest[i] = &vals[i]
	}
	err = db.sess.Query(q, key).Consistency(db.read).Idempotent(true).ScanContext(ctx, dest...)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, errclass.Wrap(errclass.NotFound, fmt.Errorf("cassandra: %s %q: %w", table, key, errclass.ErrNotFound))
	}
	if err != nil {
		return nil, db.classify(fmt.Errorf("cassandra: read %s %q: %w", table, key, err))
	}
	rec := make(driver.Record, len(cols))
	for i, c := range cols {
		rec[c] = vals[i]
	}
	return rec, nil
}

// CanServe implements driver.Capable: Scan only with cassandra.scan=token.
func (db *DB) CanServe(method string) error {
	if method == driver.MethodScan && !db.scan {
		return fmt.Errorf("cassandra.scan=none turns Scan off (cassandra.scan=token is YCSB's scan): %w", errors.ErrUnsupported)
	}
	return nil
}

// Scan reads up to n records from start's token on (see the package comment).
func (db *DB) Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]driver.Record, error) {
	if !db.scan {
		return nil, fmt.Errorf("cassandra: scan with cassandra.scan=none: %w", errors.ErrUnsupported)
	}
	if err := db.ensureTable(ctx, table); err != nil {
		return nil, err
	}
	cols, err := db.columns(fields)
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, nil
	}
	q := "SELECT y_id"
	if len(cols) > 0 {
		q += ", " + strings.Join(cols, ", ")
	}
	q += " FROM " + db.keyspace + "." + table
	args := []any{}
	if startKey != "" {
		q += " WHERE token(y_id) >= token(?)"
		args = append(args, startKey)
	}
	q += " LIMIT ?"
	args = append(args, n)
	iter := db.sess.Query(q, args...).Consistency(db.read).Idempotent(true).PageSize(min(n, 5000)).IterContext(ctx)
	var out []driver.Record
	var id string
	vals := make([][]byte, len(cols))
	dest := []any{&id}
	for i := range cols {
		dest = append(dest, &vals[i])
	}
	for iter.Scan(dest...) {
		rec := make(driver.Record, len(cols))
		for i, c := range cols {
			rec[c] = vals[i]
			vals[i] = nil
		}
		out = append(out, rec)
	}
	if err := iter.Close(); err != nil {
		return nil, db.classify(fmt.Errorf("cassandra: scan %s from %q: %w", table, startKey, err))
	}
	return out, nil
}

// sortedFields are the record's field names in order, checked against the
// table's.
func (db *DB) sortedFields(values driver.Record) ([]string, error) {
	names := make([]string, 0, len(values))
	for f := range values {
		names = append(names, f)
	}
	sort.Strings(names)
	if _, err := db.columns(names); err != nil {
		return nil, err
	}
	return names, nil
}

// Update overwrites the given fields of a record.
func (db *DB) Update(ctx context.Context, table, key string, values driver.Record) error {
	if err := db.ensureTable(ctx, table); err != nil {
		return err
	}
	names, err := db.sortedFields(values)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		_, err := db.Read(ctx, table, key, []string{})
		return err
	}
	var b strings.Builder
	b.WriteString("UPDATE " + db.keyspace + "." + table + " SET ")
	args := make([]any, 0, len(names)+1)
	for i, f := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f + " = ?")
		args = append(args, values[f])
	}
	b.WriteString(" WHERE y_id = ?")
	args = append(args, key)
	return db.write1(ctx, "update", table, key, b.String(), args)
}

// write1 runs one write, with IF EXISTS when cassandra.ifexists is set.
func (db *DB) write1(ctx context.Context, op, table, key, q string, args []any) error {
	var err error
	if db.ifExist {
		var applied bool
		applied, err = db.sess.Query(q+" IF EXISTS", args...).Consistency(db.write).
			SerialConsistency(gocql.Serial).MapScanCASContext(ctx, map[string]any{})
		if err == nil && !applied {
			return errclass.Wrap(errclass.NotFound, fmt.Errorf("cassandra: %s %s %q: %w", op, table, key, errclass.ErrNotFound))
		}
	} else {
		err = db.sess.Query(q, args...).Consistency(db.write).ExecContext(ctx)
	}
	if err != nil {
		return db.classify(fmt.Errorf("cassandra: %s %s %q: %w", op, table, key, err))
	}
	return nil
}

// Insert writes a record (replacing one with the same key, as YCSB's).
func (db *DB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	if err := db.ensureTable(ctx, table); err != nil {
		return err
	}
	names, err := db.sortedFields(values)
	if err != nil {
		return err
	}
	q, args := db.insertStmt(table, key, names, values)
	if err := db.sess.Query(q, args...).Consistency(db.write).ExecContext(ctx); err != nil {
		return db.classify(fmt.Errorf("cassandra: insert %s %q: %w", table, key, err))
	}
	return nil
}

func (db *DB) insertStmt(table, key string, names []string, values driver.Record) (string, []any) {
	var b strings.Builder
	b.WriteString("INSERT INTO " + db.keyspace + "." + table + " (y_id")
	args := make([]any, 0, len(names)+1)
	args = append(args, key)
	for _, f := range names {
		b.WriteString(", " + f)
		args = append(args, values[f])
	}
	b.WriteString(") VALUES (?" + strings.Repeat(", ?", len(names)) + ")")
	return b.String(), args
}

// InsertBatch loads the records: grouped by replica set into unlogged
// batches (loadBatches), at most cassandra.loadinflight requests in flight
// across all calls; the first error stops the rest.
func (db *DB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	if len(keys) != len(values) {
		return fmt.Errorf("cassandra: batch of %d keys and %d values", len(keys), len(values))
	}
	if len(keys) == 0 {
		return nil
	}
	if err := db.ensureTable(ctx, table); err != nil {
		return err
	}
	groups := loadBatches(keys, values, db.replicaSet, db.batch, loadBatchBytes)
	return db.inFlight(ctx, len(groups), func(ctx context.Context, g int) error {
		return db.insertGroup(ctx, table, keys, values, groups[g])
	})
}

// replicaSet names the replicas of key for grouping the load; without a
// ring each key is its own group on several nodes (a batch would make its
// coordinator forward it), and one on a single node.
func (db *DB) replicaSet(key string) (string, bool) {
	if db.policy != nil {
		if set := db.policy.replicaSet(db.keyspace, []byte(key)); set != "" {
			return set, true
		}
	}
	return "", db.nodes == 1
}

// inFlight runs f for 0..n-1 concurrently, each holding one of the load's
// slots; the first error cancels the rest and is returned.
func (db *DB) inFlight(ctx context.Context, n int, f func(context.Context, int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for i := range n {
		select {
		case db.load <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-db.load; wg.Done() }()
			if err := f(ctx, i); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// insertGroup writes the records at idx: one Insert, or an unlogged batch
// routed by its first record's key (all share its replicas).
func (db *DB) insertGroup(ctx context.Context, table string, keys []string, values []driver.Record, idx []int) error {
	if len(idx) == 1 {
		return db.Insert(ctx, table, keys[idx[0]], values[idx[0]])
	}
	b := db.sess.Batch(gocql.UnloggedBatch).Consistency(db.write)
	for _, i := range idx {
		names, err := db.sortedFields(values[i])
		if err != nil {
			return err
		}
		q, args := db.insertStmt(table, keys[i], names, values[i])
		b.Query(q, args...)
	}
	if err := b.ExecContext(ctx); err != nil {
		return db.classify(fmt.Errorf("cassandra: insert %s: batch of %d from %q: %w", table, len(idx), keys[idx[0]], err))
	}
	return nil
}

// Delete removes one record.
func (db *DB) Delete(ctx context.Context, table, key string) error {
	if err := db.ensureTable(ctx, table); err != nil {
		return err
	}
	return db.write1(ctx, "delete", table, key, "DELETE FROM "+db.keyspace+"."+table+" WHERE y_id = ?", []any{key})
}

// Reset truncates every table of the keyspace.
func (db *DB) Reset(ctx context.Context) error {
	iter := db.sess.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?", db.keyspace).IterContext(ctx)
	var names []string
	var name string
	for iter.Scan(&name) {
		names = append(names, name)
	}
	if err := iter.Close(); err != nil {
		return db.classify(fmt.Errorf("cassandra: reset: %w", err))
	}
	for _, t := range names {
		if err := db.sess.Query("TRUNCATE " + db.keyspace + "." + t).Consistency(gocql.All).ExecContext(ctx); err != nil {
			return db.classify(fmt.Errorf("cassandra: reset: truncate %s: %w", t, err))
		}
	}
	return nil
}

// Records tells whether table holds a record (0 or 1).
func (db *DB) Records(ctx context.Context, table string) (int64, error) {
	if err := db.ensureTable(ctx, table); err != nil {
		return 0, err
	}
	iter := db.sess.Query("SELECT y_id FROM " + db.keyspace + "." + table + " LIMIT 1").Consistency(db.read).IterContext(ctx)
	var id string
	n := int64(0)
	if iter.Scan(&id) {
		n = 1
	}
	if err := iter.Close(); err != nil {
		return 0, db.classify(fmt.Errorf("cassandra: %s: %w", table, err))
	}
	return n, nil
}

// ServerVersion is the release of the node that answers.
func (db *DB) ServerVersion(ctx context.Context) (string, error) {
	var v string
	if err := db.sess.Query("SELECT release_version FROM system.local").Consistency(gocql.One).ScanContext(ctx, &v); err != nil {
		return "", db.classify(fmt.Errorf("cassandra: version: %w", err))
	}
	return "Cassandra " + v, nil
}

// Target names the contact points, user and keyspace; never the password.
func (db *DB) Target() string {
	user := ""
	if db.user != "" {
		user = db.user + "@"
	}
	return "cassandra://" + user + strings.Join(db.hosts, ",") + "/" + db.keyspace
}

// Close ends the session.
func (db *DB) Close() error {
	db.sess.Close()
	return nil
}

// Package driver defines what a system has to implement to be benchmarked by
// dbrig: the DB interface and optional capabilities. Errors are sorted into
// classes by package errclass.
//
// One subpackage per system (sim, pebble, null, redis, postgres, ...) provides
// an Open function; driver/all wires them into a Registry.
package driver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/spec"
)

// Record is one row: field name → value.
type Record map[string][]byte

// DB is the only thing a new system has to implement. A DB is shared by all
// clients of a run, so every method must be safe for concurrent use.
type DB interface {
	// Read returns the named fields of one record (all fields when fields is nil).
	// A missing key returns an error that wraps errclass.ErrNotFound; other
	// errors should carry a class (errclass.Wrap) so a run can count them.
	Read(ctx context.Context, table, key string, fields []string) (Record, error)
	// Scan returns up to n records in key order, starting at startKey (inclusive).
	Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]Record, error)
	// Update overwrites the given fields of an existing record.
	Update(ctx context.Context, table, key string, values Record) error
	// Insert writes a new record.
	Insert(ctx context.Context, table, key string, values Record) error
	// Delete removes one record.
	Delete(ctx context.Context, table, key string) error
	Close() error
}

// Optional capabilities, discovered with type assertions.

// Names of DB's methods, as Capable and the workloads name them.
const (
	MethodRead   = "Read"
	MethodScan   = "Scan"
	MethodUpdate = "Update"
	MethodInsert = "Insert"
	MethodDelete = "Delete"
)

// VersionOnly is version without a leading system name (any case), which
// would show twice after the name: "pebble pebble v1.1.5", "null null".
func VersionOnly(name, version string) string {
	v := strings.TrimSpace(version)
	if len(v) >= len(name) && strings.EqualFold(v[:len(name)], name) && (len(v) == len(name) || v[len(name)] == ' ') {
		return strings.TrimSpace(v[len(name):])
	}
	return v
}

// Capable is implemented by a DB that, as configured, cannot serve one of
// DB's methods at all (Hazelcast's Scan with hazelcast.scan=none: IMap keys
// are hashed): CanServe returns why for a method name (MethodScan), naming
// the property that enables it, or nil. A run whose workload calls such a
// method is refused before it is stored, instead of measuring only errors.
type Capable interface {
	CanServe(method string) error
}

// BatchInserter inserts many records in one round trip (fast load).
type BatchInserter interface {
	InsertBatch(ctx context.Context, table string, keys []string, values []Record) error
}

// Versioner reports the server's version for the run's context: the
// version alone ("v1.1.5", "3.46.0"), since it is shown after the system's
// name (VersionOnly trims a name given anyway).
type Versioner interface {
	ServerVersion(ctx context.Context) (string, error)
}

// Resetter drops all benchmark data (used before a fresh load).
type Resetter interface {
	Reset(ctx context.Context) error
}

// Preloaded tells whether a table already holds records, cheaply: 0 when it
// is empty (or absent), else at least 1 (a driver may stop counting at the
// first). A load into a table that an earlier run filled would fail on its
// first duplicate key; asked before the load, this turns that into bad input.
type Preloaded interface {
	Records(ctx context.Context, table string) (int64, error)
}

// TimeOrigin is implemented by a driver whose behaviour is scheduled in
// time (the simulator's hiccups): Origin is the instant its schedule counts
// from, so an experiment can place its predictions on the same clock.
type TimeOrigin interface {
	Origin() time.Time
}

// Describer returns the target of a driver with any secret removed, for the
// run's context (e.g. "postgres://bench@127.0.0.1:5432/ycsb").
type Describer interface {
	Target() string
}

// Config is what a driver receives when it is opened.
type Config struct {
	// Props holds all properties of the run; a driver reads its own
	// (prefixed with its name, e.g. "redis.addr") and so marks them as known.
	Props *spec.Props
	// Dir is a scratch directory the driver may use when it has no explicit
	// data path (embedded engines).
	Dir string
}

// OpenFunc opens a DB for one run.
type OpenFunc func(ctx context.Context, cfg Config) (DB, error)

// Driver is one system dbrig can drive: how to open it, and every property
// Open reads, declared up front so a typo is caught before anything
// connects, `dbrig drivers NAME` can list them, and secrets are redacted by
// their own format wherever they are stored or shown.
//
// The rest of what dbrig knows about the system lives in its home too and
// is reached through the fields below (nil: the system does not have it),
// never by the system's name.
type Driver struct {
	Open OpenFunc
	// Type is a nil value of the type Open returns ((*DB)(nil)): its
	// optional capabilities, asked by type assertion before anything
	// connects or a cluster starts (`dbrig rate --reset snapshot` on a
	// system without snapshots is refused as bad input). nil: unknown
	// until a DB is opened.
	Type  DB
	Props []spec.Decl
	Doc   string // one line: the system and its client library
	// Clusters are the local clusters dbrig can start of this system, by
	// recipe name (system.cluster.recipe, `dbrig cluster up RECIPE`).
	Clusters map[string]ClusterFunc
	// Embedded is set for a system that runs inside dbrig's process.
	Embedded *Embedded
	// Leader asks the running system which member leads it (a Kubernetes
	// fault's target leader), through the driver's properties.
	Leader LeaderFunc
	// RatingProps are properties (key=value) `dbrig rate` sets for every
	// experiment unless the user gave the key: what makes two ratings of
	// the system agree (PostgreSQL: the table's autovacuum off, its vacuum
	// done by the settle step between experiments instead).
	RatingProps []string
	// EnvProps are the properties that point the driver at a running
	// system: those a local cluster of it sets, which `dbrig cluster env`
	// exports. `dbrig run` and `bench` read each from its variable (Env)
	// when no property file, -p or flag sets it.
	EnvProps []string
}

// EnvVar is one environment variable a driver's property is read from.
type EnvVar struct {
	Name string // DBRIG_ETCD_ENDPOINTS
	Key  string // etcd.endpoints
}

// Env is the one table of environment variables → properties of d: each of
// its EnvProps, named as `dbrig cluster env` names it (cluster.EnvName with
// cluster.EnvPrefix).
func (d Driver) Env() []EnvVar {
	out := make([]EnvVar, 0, len(d.EnvProps))
	for _, k := range d.EnvProps {
		out = append(out, EnvVar{Name: cluster.EnvName(cluster.EnvPrefix, k), Key: k})
	}
	return out
}

// ClusterFunc builds a local cluster recipe from system.cluster's options
// (or `dbrig cluster up`'s flags). given tells which options were set, by
// key (nodes, replicas, sentinels, binary, config); an option the system
// does not have is refused through refuse, by key, so the error points at
// the file's line or at the flag.
type ClusterFunc func(c spec.Cluster, given func(key string) bool, refuse func(key, why string) error) (cluster.Recipe, error)

// Embedded describes where an embedded system keeps its data.
type Embedded struct {
	// DataProp is the property that keeps the data in files outside the
	// run's scratch directory (pebble.dir); "" when the data lives in
	// memory only. Without it the data set lives as long as one driver.
	DataProp string
}

// Member is a member of a running system as the system names it: its name
// and the addresses (URLs, host:port) it is known by.
type Member struct {
	Name  string
	Addrs []string
}

// LeaderFunc asks the system reached by the driver's properties (key →
// value) which member leads it now.
type LeaderFunc func(ctx context.Context, props map[string]string) (Member, error)

// Registry maps a driver name to its Driver. Build one with driver/all.
type Registry map[string]Driver

// ErrUnknownDriver is wrapped by Registry.Open for a name it does not have.
var ErrUnknownDriver = errors.New("unknown driver")

// Open opens the named driver, or explains which names exist.
func (r Registry) Open(ctx context.Context, name string, cfg Config) (DB, error) {
	d, ok := r[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (expected one of: %v)", ErrUnknownDriver, name, r.Names())
	}
	return d.Open(ctx, cfg)
}

// Names lists the registered drivers in order.
func (r Registry) Names() []string {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Servers lists the registered systems that run as servers, and the
// embedded ones that keep their data in memory only (no DataProp).
func (r Registry) Servers() (servers, memory []string) {
	for _, n := range r.Names() {
		switch e := r[n].Embedded; {
		case e == nil:
			servers = append(servers, n)
		case e.DataProp == "":
			memory = append(memory, n)
		}
	}
	return servers, memory
}

// ScheduleAware is implemented by a DB that wants to know when each operation
// was meant to start by the load schedule (driver.IntendedStart). The
// simulated store takes it as the arrival time in its queue model, so the
// harness's own scheduling jitter is measured (as response time) but does not
// feed back into the simulated server as idle time. The runner only adds the
// time to the context for such a DB, keeping the common path free of it.
type ScheduleAware interface {
	WantsIntendedStart()
}

type intendedKey struct{}

// WithIntendedStart returns ctx carrying the operation's intended start.
func WithIntendedStart(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, intendedKey{}, t)
}

// IntendedStart returns the intended start carried by ctx, if any.
func IntendedStart(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(intendedKey{}).(time.Time)
	return t, ok
}

// FirstGiven is the first of keys that given reports as set, or "": the
// option a ClusterFunc refuses.
func FirstGiven(given func(key string) bool, keys ...string) string {
	for _, k := range keys {
		if given(k) {
			return k
		}
	}
	return ""
}

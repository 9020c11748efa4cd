package cluster

import (
	"context"
	"time"
)

// Optional capabilities of a recipe besides RoleResolver (roles.go),
// Elastic (elastic.go) and Routable (proxy.go), found by type assertion:
// orchestration asks a recipe what it can do, never which system it is.

// Numbered is implemented by recipes whose nodes are numbered members of
// one kind (etcd1..N): cycle_targets moves a fault from one to the next.
type Numbered interface {
	// Numbered returns the members' name prefix and how many there are.
	Numbered() (prefix string, n int)
}

// DatabaseCreator is implemented by recipes that can create databases
// beside their own (`dbrig cluster up --database`); names are valid
// (ValidDatabaseName). An error says why the system has none to create.
type DatabaseCreator interface {
	WithDatabases(names []string) (Recipe, error)
}

// Passworded is implemented by recipes whose clients need a password
// (`dbrig cluster up --password-env`): WithPassword sets it.
type Passworded interface {
	WithPassword(pw string) Recipe
}

// Describer is implemented by recipes that can say in a few words what the
// cluster will be (`dbrig bench --dry-run`: "etcd × 3").
type Describer interface {
	Describe() string
}

// Describe is r's own description, or its system's name.
func Describe(r Recipe) string {
	if d, ok := r.(Describer); ok {
		return d.Describe()
	}
	return r.System()
}

// ProxyBypasser is implemented by recipes whose driver reaches nodes that
// dbrig's client proxies do not front, so the proxies' traffic counts
// would show only part of it (Hazelcast's smart client connects to the
// member addresses the cluster announces; Redis through Sentinel reaches
// the primary directly).
type ProxyBypasser interface {
	BypassesProxies(nodes []Node) bool
}

// Gauge is one reading of a measure the system keeps of a node.
type Gauge struct {
	Node, Name string
	Time       time.Time
	Value      float64
}

// GaugeReplayLag is a replica's replication lag in bytes: how far its
// replayed position is behind its primary's (results.GaugeReplayLag).
const GaugeReplayLag = "replay_lag_bytes"

// Gauger is implemented by recipes whose clusters have gauges worth
// sampling while faults act on them (PostgreSQL: each replica's
// replication lag).
type Gauger interface {
	// Gauges returns a sampler of the nodes' gauges, or nil when these
	// nodes have none (no replica).
	Gauges(nodes []Node) GaugeSampler
}

// GaugeSampler reads gauges: each Sample reads every gauge once (a node
// that does not answer gives no reading that time); Close frees what it
// holds.
type GaugeSampler interface {
	Sample(ctx context.Context, timeout time.Duration) []Gauge
	Close()
}

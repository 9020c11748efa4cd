// Package all wires every built-in driver into a registry. It is the only
// package that imports them all, so a program that needs only one driver can
// import just that one.
package all

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/cassandra"
	"github.com/dbrig/dbrig/driver/etcd"
	"github.com/dbrig/dbrig/driver/hazelcast"
	"github.com/dbrig/dbrig/driver/influxdb"
	"github.com/dbrig/dbrig/driver/mongodb"
	"github.com/dbrig/dbrig/driver/mysql"
	"github.com/dbrig/dbrig/driver/null"
	"github.com/dbrig/dbrig/driver/pebble"
	"github.com/dbrig/dbrig/driver/postgres"
	"github.com/dbrig/dbrig/driver/redis"
	"github.com/dbrig/dbrig/driver/sim"
	"github.com/dbrig/dbrig/driver/sqlite"
	"github.com/dbrig/dbrig/driver/victoriametrics"
)

// Drivers orchestration names without a user naming them.
const (
	// Default is the driver a run uses when none is named: an embedded
	// store, so a first run needs no server.
	Default = "pebble"
	// Sim is the simulated store of known capacity `dbrig validate`
	// checks the harness against.
	Sim = "sim"
	// Null is the driver that does nothing: the harness's own ceiling
	// (`dbrig selftest`) and a plan resolved only for its properties.
	Null = "null"
)

// Registry returns a fresh registry of all drivers; callers may add to it.
// One line per driver, in alphabetical order.
func Registry() driver.Registry {
	return driver.Registry{
		"cassandra":       cassandra.Driver(),
		"etcd":            etcd.Driver(),
		"hazelcast":       hazelcast.Driver(),
		"influxdb":        influxdb.Driver(),
		"mongodb":         mongodb.Driver(),
		"mysql":           mysql.Driver(),
		"null":            null.Driver(),
		"pebble":          pebble.Driver(),
		"postgres":        postgres.Driver(),
		"redis":           redis.Driver(),
		"sim":             sim.Driver(),
		"sqlite":          sqlite.Driver(),
		"victoriametrics": victoriametrics.Driver(),
	}
}

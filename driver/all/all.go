// Package all wires every built-in driver into a registry. It is the only
// package that imports them all, so a program that needs only one driver can
// import just that one.
package all

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/etcd"
	"github.com/dbrig/dbrig/driver/hazelcast"
	"github.com/dbrig/dbrig/driver/mysql"
	"github.com/dbrig/dbrig/driver/null"
	"github.com/dbrig/dbrig/driver/pebble"
	"github.com/dbrig/dbrig/driver/postgres"
	"github.com/dbrig/dbrig/driver/redis"
	"github.com/dbrig/dbrig/driver/sim"
	"github.com/dbrig/dbrig/driver/sqlite"
)

// Registry returns a fresh registry of all drivers; callers may add to it.
// One line per driver, in alphabetical order.
func Registry() driver.Registry {
	return driver.Registry{
		"etcd":      etcd.Driver(),
		"hazelcast": hazelcast.Driver(),
		"mysql":     mysql.Driver(),
		"null":      null.Driver(),
		"pebble":    pebble.Driver(),
		"postgres":  postgres.Driver(),
		"redis":     redis.Driver(),
		"sim":       sim.Driver(),
		"sqlite":    sqlite.Driver(),
	}
}

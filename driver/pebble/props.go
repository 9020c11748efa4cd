package pebble

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the pebble driver with the properties Open reads.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), Open: Open, Embedded: &driver.Embedded{DataProp: "pebble.dir"}, Doc: "Pebble LSM, embedded (github.com/cockroachdb/pebble)", Props: []spec.Decl{
		{Key: "pebble.dir", Type: "path", Default: "the run's scratch directory", Doc: "data directory"},
		{Key: "pebble.sync", Type: "bool", Default: "false", Doc: "fsync every write"},
		{Key: "pebble.cachemb", Type: "int", Default: "64", Doc: "block cache size in MiB"},
	}}
}

package sqlite

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the sqlite driver with the properties Open reads.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), Open: Open, Embedded: &driver.Embedded{DataProp: "sqlite.path"}, Doc: "SQLite, embedded (modernc.org/sqlite)", Props: []spec.Decl{
		{Key: "sqlite.path", Type: "path", Default: "ycsb.db in the run's scratch directory", Doc: "database file"},
		{Key: "sqlite.timeout", Type: "duration", Default: "10s", Doc: "per-operation timeout (0 = none)"},
		{Key: "sqlite.busytimeout", Type: "duration", Default: "5s", Doc: "how long to wait for another process's lock"},
		{Key: "sqlite.synchronous", Type: "string", Default: "normal", Doc: "normal, full or off"},
		{Key: "sqlite.poolsize", Type: "int", Default: "max(threadcount, 4)", Doc: "read connections"},
	}}
}

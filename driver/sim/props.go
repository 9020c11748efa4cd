package sim

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the simulated store with the properties Open reads.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), Open: Open, Embedded: &driver.Embedded{}, Doc: "simulated store with known capacity and hiccups (validation)", Props: []spec.Decl{
		{Key: "sim.capacity", Type: "float", Default: "0", Doc: "operations per second the server completes (0 = unlimited, no queue)"},
		{Key: "sim.latency", Type: "duration", Default: "0", Doc: "fixed time added to every operation, not occupying the server"},
		{Key: "sim.hiccups", Type: "list", Doc: "START+DURATION,… from when the store is opened, e.g. 10s+1s,40s+500ms"},
	}}
}

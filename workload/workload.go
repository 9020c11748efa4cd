// Package workload defines what a benchmark does: a Workload names its
// operation types and hands out Clients that perform them against a driver.DB.
// Implementations live in subpackages (ycsb, later tpcc, tsdb).
package workload

import (
	"context"

	"github.com/dbrig/dbrig/driver"
)

// Workload produces operations. It is created once per run from properties and
// is safe for concurrent use by its Clients.
type Workload interface {
	// Ops names the operation types in a fixed order; a Client reports the
	// index of the operation it performed (measure.Op).
	Ops() []string
	// LoadCount is the number of records the load phase inserts.
	LoadCount() int64
	// NewClient returns the state of one client (one goroutine).
	// seed makes its random choices reproducible.
	NewClient(id int, seed int64) Client
}

// Client performs operations; it is used by one goroutine only.
type Client interface {
	// Load inserts the next up to max records of the load phase and returns how
	// many it inserted; 0 with a nil error means the load phase is complete.
	// It uses driver.BatchInserter when the DB has it and max > 1.
	Load(ctx context.Context, db driver.DB, max int) (n int, err error)
	// Do performs one operation of the run phase and reports which (index into Ops).
	Do(ctx context.Context, db driver.DB) (op int, err error)
}

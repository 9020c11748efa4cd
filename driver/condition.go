package driver

import "context"

// Conditioner is a DB that can measure the physical condition of a
// table's data set: what its capacity follows besides the rows it holds.
// A logically exact restore (the same rows, checksum-tested) can leave
// PostgreSQL's dead tuples, bloat and statistics, or an LSM's levels and
// compaction debt, elsewhere than the load left them, and the store then
// serves another capacity. `dbrig rate` measures the condition after each
// settle (Settler) and stores it with the step, so that a rating can say
// when the store it rated drifted, and by how much.
//
// Like Settle, it runs on a DB opened for it, with no operation running.
type Conditioner interface {
	Condition(ctx context.Context, table string) (Condition, error)
}

// Condition is a data set's condition: the figures a system exposes about
// it, in an order the system chooses (the most telling first).
type Condition []Figure

// Figure is one measured aspect of a data set's condition.
type Figure struct {
	Name  string  `json:"name"`  // e.g. table_bytes, dead_rows, l0_files
	Value float64 `json:"value"` // in Unit
	// Unit is bytes, rows, files, … or UnitShare: a fraction (0…1) of the
	// data set, compared between steps as a difference, not a ratio (dead
	// rows are 0 % after a vacuum, and 0.1 % is no 10-fold drift).
	Unit string `json:"unit"`
}

// UnitShare is the unit of a Figure that is a fraction of the data set.
const UnitShare = "share"

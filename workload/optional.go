package workload

import (
	"context"
	"time"

	"github.com/dbrig/dbrig/driver"
)

// Optional capabilities of a Workload or Client, found by type assertion.
// YCSB needs none of them; TPC-C (workload/tpcc) uses them all.

// MethodUser is a Workload that names the driver.DB methods its run phase
// calls, each with the property that makes it call it (YCSB: Scan because
// of scanproportion), so that a driver that cannot serve one
// (driver.Capable) is refused before the run, where the property was set.
type MethodUser interface {
	Methods() []MethodUse
}

// MethodUse is one driver.DB method a workload calls, and why.
type MethodUse struct {
	Method string // driver.MethodScan, …
	Prop   string // the property that makes the workload call it
}

// Preparer is a Workload that sets its data set up itself (a schema) before
// a run is stored: it checks what the database already holds and creates
// what is missing. recreate drops an earlier data set first. loaded reports
// a data set that is already complete (tpcc.reuse), so the load phase is
// skipped. A mismatch the user can fix (a schema of another scale) is a
// *spec.PropError naming the property.
type Preparer interface {
	Prepare(ctx context.Context, db driver.DB, recreate bool) (loaded bool, err error)
}

// Checker is a Workload that can verify the consistency of the data after a
// run (TPC-C's consistency conditions). Enabled tells whether the user asked
// for it to run after every run; Check returns a *CheckError when the data
// is inconsistent.
type Checker interface {
	CheckEnabled() bool
	Check(ctx context.Context, db driver.DB) error
}

// CheckError is a failed consistency check: each problem in words.
type CheckError struct {
	Problems []string
}

func (e *CheckError) Error() string {
	s := "consistency check failed:"
	for _, p := range e.Problems {
		s += "\n  " + p
	}
	return s
}

// OpCount is what a phase counted of one operation type.
type OpCount struct {
	Op            string
	Count, Errors int64
}

// Metric is a headline figure of a run (TPC-C's tpmC), computed by the
// workload from the measure phase.
type Metric struct {
	Name  string // short, stable: tpmc, tpm_total
	Value float64
	Unit  string // e.g. "txn/min"
	Doc   string // one line: what it counts
}

// Headliner is a Workload with headline metrics, shown first in summaries,
// in the JSON output and the reports, and stored with the run.
type Headliner interface {
	Headline(elapsed time.Duration, ops []OpCount) []Metric
}

// Pacer is a Client that decides how long to wait before its next
// operation (TPC-C's keying and think times): the closed model without a
// rate waits Pause() after the previous operation ended (before the first:
// after the start), and measures response time from then.
type Pacer interface {
	Pause() time.Duration
}

// InputError is bad input a workload finds only when it sees the database
// (a schema of another scale, a driver without a capability it needs): the
// run is refused before it is stored, as for a bad property.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

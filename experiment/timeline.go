package experiment

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/results"
)

// timeline records every operation of a run with faults — intended start,
// response time, success — so analysis can place recovery and unavailable
// time at millisecond resolution (results.Timeline). In memory: 24 bytes
// per operation (24 MB per million; the slice grows by doubling, so up to
// twice that while it grows); stored: varints, about 5-7 bytes per
// operation of the measure phase.
type timeline struct {
	origin time.Time // the run's start
	mu     sync.Mutex
	ops    []results.TimedOp
}

func newTimeline(origin time.Time) *timeline { return &timeline{origin: origin} }

// record runs op and notes it. A nil timeline only runs op. The operation
// started when the runner intended it to (driver.IntendedStart), else now.
func (tl *timeline) record(ctx context.Context, op func() error) error {
	if tl == nil {
		return op()
	}
	start := time.Now()
	intended, ok := driver.IntendedStart(ctx)
	if !ok || intended.After(start) {
		intended = start
	}
	err := op()
	end := time.Now()
	// What the workload itself causes (a missing key, a lost
	// compare-and-swap) is not the fault's doing: it counts as served.
	served := err == nil || errors.Is(err, errclass.ErrNotFound) || errclass.Of(err) == errclass.Conflict
	o := results.TimedOp{StartUS: intended.Sub(tl.origin).Microseconds(), LatencyUS: end.Sub(intended).Microseconds(), OK: served}
	tl.mu.Lock()
	tl.ops = append(tl.ops, o)
	tl.mu.Unlock()
	return err
}

// since returns the operations that were intended to start at or after t.
func (tl *timeline) since(t time.Time) []results.TimedOp {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	from := t.Sub(tl.origin).Microseconds()
	var out []results.TimedOp
	for _, o := range tl.ops {
		if o.StartUS >= from {
			out = append(out, o)
		}
	}
	return out
}

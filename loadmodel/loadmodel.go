// Package loadmodel is the one home of a run's load settings: the Load a
// run is configured with (experiment files decode into it), reports as it
// runs (run.Config.Settings), stores (results) and shows (format). The
// models themselves, which check their own settings and drive the
// operations, are run.Closed and run.Open, one file each; Load is their
// flat form, so no layer keeps a copy of its own.
//
// It depends on nothing, so that every layer may use it.
package loadmodel

import (
	"fmt"
	"time"
)

// Model names, as stored with a run.
const (
	Closed = "closed"
	Open   = "open"
	// LoadOnly is stored for a run that only loaded its data set.
	LoadOnly = "load"
)

// Load is how a run schedules its operations, and its phases.
//
// Stored with every run (results' runs table), except MaxBacklog: the
// stored schema has no column for it, and what is shown of a run
// (format.LoadBrief, LoadDetail, LoadPhrase) does not show it.
type Load struct {
	// Model is Closed or Open; "" before a model is chosen (an experiment
	// file without model: open when a rate is set, else closed); LoadOnly
	// as stored for a load-only run.
	Model   string
	Clients int // closed: clients; open: size of the client pool
	// Rate is the target ops/s (0: as fast as possible); of a rate
	// schedule, its peak: what the system must be able to take.
	Rate       float64
	Arrival    string        // open: the arrival process (constant, poisson)
	ThinkTime  time.Duration // closed without a rate: pause after each operation
	MaxBacklog int           // open: queued operations before dropping
	Warmup     time.Duration
	Duration   time.Duration // planned measure phase; 0 when bounded by Operations
	Operations int64         // planned operations; 0 when bounded by Duration
	Seed       int64
}

// RateStep is one stretch of an open model's rate schedule: hold Rate for
// For, or with Ramp go linearly from the rate before it (0 for the first
// step) to Rate over For — after k6's ramping-arrival-rate stages. A run
// stores only the schedule's peak (Load.Rate).
type RateStep struct {
	Rate float64
	For  time.Duration
	Ramp bool
}

func (s RateStep) String() string {
	if s.Ramp {
		return fmt.Sprintf("ramp to %g/s over %v", s.Rate, s.For)
	}
	return fmt.Sprintf("%g/s for %v", s.Rate, s.For)
}

// Package load runs a workload against a driver.DB: the load phase (inserting
// the data set), then warmup and measure phases under a closed or open load
// model, feeding every operation to a measure.Recorder and reporting an
// Interval every second to an Observer.
package run

import (
	"fmt"
	"math"
	"time"
)

// Model is when operations are issued.
type Model string

const (
	// Closed: Clients goroutines each issue operations back to back (with
	// optional think time), or paced to a per-client schedule when Rate > 0.
	Closed Model = "closed"
	// Open: one scheduler issues operations at Rate from an arrival process,
	// independent of how fast the system answers; Clients workers perform them.
	Open Model = "open"
)

// Arrival processes of the open model.
const (
	Constant = "constant"
	Poisson  = "poisson"
)

// Defaults for zero Config fields.
const (
	DefaultMaxBacklog = 100_000
	DefaultLoadBatch  = 100
	DefaultInterval   = time.Second
	DefaultGrace      = 5 * time.Second
)

// Config says how to run. Zero values take the defaults noted per field.
type Config struct {
	Clients int   // closed: concurrent clients; open: worker pool size (≥ 1)
	Model   Model // Closed (default) or Open
	// Rate is the target total throughput in ops/s. 0 = as fast as possible
	// (closed model only; the open model needs a rate).
	Rate      float64
	Arrival   string        // open model: Constant (default) or Poisson
	ThinkTime time.Duration // closed model without Rate: pause after each operation

	// Bounds of the measure phase, whichever comes first; at least one is
	// required. Operations: exactly this many are issued (in the open model:
	// scheduled, each one performed or counted as dropped). Duration: no
	// operation starts after it; those in flight are awaited.
	Operations int64
	Duration   time.Duration
	Warmup     time.Duration // recorded as phase "warmup" before measure; 0 = none

	MaxBacklog int           // open model: queued operations before dropping (DefaultMaxBacklog)
	Seed       int64         // seeds clients and arrivals, for reproducible runs
	OpTimeout  time.Duration // per-operation context timeout; 0 = none

	LoadBatch   int // records per Client.Load call (DefaultLoadBatch)
	LoadClients int // concurrent loaders (default Clients)

	Interval time.Duration // reporting interval (DefaultInterval)
	// Grace bounds the wait for in-flight operations after ctx is cancelled;
	// then their contexts are cancelled too (DefaultGrace).
	Grace time.Duration
	// SpinWait makes schedulers busy-wait (yielding) for the last SpinWait
	// before an intended start instead of sleeping: timer wake-ups can be late
	// by up to ~1 ms, which shows as response time. Costs CPU; default 0.
	SpinWait time.Duration
}

// withDefaults fills zero fields and checks the config; run says whether it
// is for Run (which needs a bound) or only Load.
func (c Config) withDefaults(run bool) (Config, error) {
	if c.Model == "" {
		c.Model = Closed
	}
	if c.Arrival == "" {
		c.Arrival = Constant
	}
	if c.MaxBacklog == 0 {
		c.MaxBacklog = DefaultMaxBacklog
	}
	if c.LoadBatch == 0 {
		c.LoadBatch = DefaultLoadBatch
	}
	if c.LoadClients == 0 {
		c.LoadClients = c.Clients
	}
	if c.Interval == 0 {
		c.Interval = DefaultInterval
	}
	if c.Grace == 0 {
		c.Grace = DefaultGrace
	}
	return c, c.check(run)
}

func (c Config) check(run bool) error {
	bad := func(field string, got any, want string) error {
		return fmt.Errorf("load config: %s = %v: %s", field, got, want)
	}
	switch {
	case c.Clients < 1 && (run || c.LoadClients < 1):
		return bad("clients", c.Clients, "need at least 1")
	case c.LoadClients < 1:
		return bad("load clients", c.LoadClients, "need at least 1")
	case c.LoadBatch < 1:
		return bad("load batch", c.LoadBatch, "need at least 1")
	case c.Interval < 10*time.Millisecond:
		return bad("interval", c.Interval, "need at least 10ms")
	case c.Grace < 0 || c.OpTimeout < 0 || c.SpinWait < 0:
		return fmt.Errorf("load config: grace, op timeout and spin wait must not be negative (got %v, %v, %v)", c.Grace, c.OpTimeout, c.SpinWait)
	}
	if !run {
		return nil
	}
	switch {
	case c.Model != Closed && c.Model != Open:
		return bad("model", fmt.Sprintf("%q", c.Model), `expected "closed" or "open"`)
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return bad("rate", c.Rate, "expected ops/s ≥ 0")
	case c.Model == Open && c.Rate == 0:
		return bad("rate", c.Rate, "the open model needs a target rate > 0 ops/s")
	case c.Arrival != Constant && c.Arrival != Poisson:
		return bad("arrival", fmt.Sprintf("%q", c.Arrival), `expected "constant" or "poisson"`)
	case c.Model == Closed && c.Arrival != Constant:
		return bad("arrival", c.Arrival, "arrival processes belong to the open model; the closed model paces each client evenly")
	case c.ThinkTime < 0:
		return bad("think time", c.ThinkTime, "must not be negative")
	case c.ThinkTime > 0 && (c.Model == Open || c.Rate > 0):
		return bad("think time", c.ThinkTime, "applies to the closed model without a rate only")
	case c.Operations < 0:
		return bad("operations", c.Operations, "must not be negative")
	case c.Duration < 0:
		return bad("duration", c.Duration, "must not be negative")
	case c.Operations == 0 && c.Duration == 0:
		return fmt.Errorf("load config: the measure phase needs a bound: operations > 0 and/or duration > 0")
	case c.Warmup < 0:
		return bad("warmup", c.Warmup, "must not be negative")
	case c.MaxBacklog < 1:
		return bad("max backlog", c.MaxBacklog, "need at least 1")
	}
	return nil
}

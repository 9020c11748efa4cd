// Package run drives a workload against a driver.DB: the load phase
// (inserting the data set), then the warmup and measure phases under a load
// Model (closed.go, open.go), feeding every operation to a measure.Recorder
// and reporting an Interval every second to an Observer. It knows nothing of
// stores, flags or printing.
package run

import (
	"fmt"
	"time"

	"github.com/dbrig/dbrig/loadmodel"
)

// Defaults for zero Config fields.
const (
	DefaultMaxBacklog = 100_000
	DefaultLoadBatch  = 100
	DefaultInterval   = time.Second
	DefaultGrace      = 5 * time.Second
	// DefaultSpinWait is the SpinWait dbrig's commands use (property
	// spinwait): enough to cover a nanosleep's usual lateness on a small VM.
	DefaultSpinWait = 200 * time.Microsecond
	// MaxClients bounds Clients and LoadClients: each is a goroutine with
	// its own workload state, and past this many the harness, not the
	// system, is what gets measured (and memory runs out before the run
	// starts). Many load generators are the way to more (see the roadmap).
	MaxClients = 100_000
)

// Config says how to run. Zero values take the defaults noted per field.
type Config struct {
	Clients int   // closed: concurrent clients; open: worker pool size (≥ 1)
	Model   Model // when operations start: Closed{} (default) or Open{…}

	// Bounds of the measure phase, whichever comes first; at least one is
	// required. Operations: exactly this many are issued (in the open model:
	// scheduled, each one performed or counted as dropped). Duration: no
	// operation starts after it; those in flight are awaited.
	Operations int64
	Duration   time.Duration
	Warmup     time.Duration // recorded as phase "warmup" before measure; 0 = none

	Seed      int64         // seeds clients and arrivals, for reproducible runs
	OpTimeout time.Duration // per-operation context timeout; 0 = none

	LoadBatch   int // records per workload Load call (DefaultLoadBatch)
	LoadClients int // concurrent loaders (default Clients)
	// LoadDuration bounds the load phase (0: none): the loaders stop when
	// it has passed and the data set is partial (Summary.Records says how
	// much of it there is).
	LoadDuration time.Duration

	Interval time.Duration // reporting interval (DefaultInterval)
	// Grace bounds the wait for in-flight operations after ctx is cancelled;
	// then their contexts are cancelled too (DefaultGrace).
	Grace time.Duration
	// SpinWait makes the client due next busy-wait (yielding to other
	// goroutines, not to other processes) for the last SpinWait before an
	// intended start instead of sleeping: a sleep returns tens to hundreds of
	// µs late, which shows as response time. It costs up to SpinWait of one
	// core per operation, and at most half of a core: the open model's
	// window is never more than half the gap between arrivals
	// (spinwindow.go). 0: none, sleeps only; dbrig's commands use
	// DefaultSpinWait. The open model widens its window to the sleeps'
	// recent p99.9 lateness when that is between SpinWait and 2 × SpinWait.
	SpinWait time.Duration
}

// withDefaults fills zero fields and checks the config; run says whether it
// is for Run (which needs a bound) or only Load.
func (c Config) withDefaults(run bool) (Config, error) {
	if c.Model == nil {
		c.Model = Closed{}
	}
	if o, ok := c.Model.(Open); ok {
		c.Model = o.withDefaults()
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

// Check reports what is wrong with a config before anything runs: run says
// whether it is for Run (which needs a bound) or only for Load.
func (c Config) Check(run bool) error {
	_, err := c.withDefaults(run)
	return err
}

// Settings is the run's load as stored and shown: the model's settings
// with defaults applied, and the config's clients, phases and seed.
func (c Config) Settings() loadmodel.Load {
	c, _ = c.withDefaults(false)
	s := c.Model.Settings()
	s.Clients, s.Warmup, s.Duration, s.Operations, s.Seed = c.Clients, c.Warmup, c.Duration, c.Operations, c.Seed
	return s
}

func (c Config) check(run bool) error {
	bad := func(field string, got any, want string) error {
		return &ConfigError{Field: field, Value: got, Want: want}
	}
	switch {
	case c.Clients < 1 && (run || c.LoadClients < 1):
		return bad("clients", c.Clients, "need at least 1")
	case c.LoadClients < 1:
		return bad("load clients", c.LoadClients, "need at least 1")
	case c.Clients > MaxClients || c.LoadClients > MaxClients:
		return bad("clients", max(c.Clients, c.LoadClients), fmt.Sprintf("at most %d per dbrig process", MaxClients))
	case c.LoadBatch < 1:
		return bad("load batch", c.LoadBatch, "need at least 1")
	case c.Interval < 10*time.Millisecond:
		return bad("interval", c.Interval, "need at least 10ms")
	case c.Grace < 0 || c.OpTimeout < 0 || c.SpinWait < 0:
		return &ConfigError{Field: "grace, op timeout and spin wait", Want: "must not be negative (got " +
			c.Grace.String() + ", " + c.OpTimeout.String() + ", " + c.SpinWait.String() + ")"}
	}
	if !run {
		return nil
	}
	switch {
	case c.Operations < 0:
		return bad("operations", c.Operations, "must not be negative")
	case c.Duration < 0:
		return bad("duration", c.Duration, "must not be negative")
	case c.Operations == 0 && c.Duration == 0:
		return &ConfigError{Field: "the measure phase", Want: "needs a bound: operations > 0 and/or duration > 0"}
	case c.Warmup < 0:
		return bad("warmup", c.Warmup, "must not be negative")
	}
	return c.Model.Check(c.Clients)
}

package run

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workload"
)

// Open is the open load model: one scheduler computes every operation's
// intended start from the Arrival process and queues it for a pool of
// clients, whatever the system's speed. Time spent in the queue counts in
// the response time; an operation that finds the queue full (MaxBacklog) is
// counted as dropped, and so is one still queued when the phase ends.
type Open struct {
	Rate       float64 // total ops/s (> 0), unless Schedule is given
	Arrival    Arrival // Constant{} when nil
	MaxBacklog int     // queued operations before dropping (DefaultMaxBacklog when 0)
	// Schedule, instead of Rate, varies the target rate over the phase:
	// holds and linear ramps; no operation is intended after its end.
	Schedule []RateStep
}

func (m Open) withDefaults() Open {
	if m.Arrival == nil {
		m.Arrival = Constant{}
	}
	if m.MaxBacklog == 0 {
		m.MaxBacklog = DefaultMaxBacklog
	}
	return m
}

// Settings implements Model.
func (m Open) Settings() Settings {
	m = m.withDefaults()
	s := Settings{Model: OpenName, Rate: m.Rate, Arrival: m.Arrival.Name(), MaxBacklog: m.MaxBacklog}
	for _, st := range m.Schedule {
		s.Rate = max(s.Rate, st.Rate) // the peak: what the system must be able to take
	}
	return s
}

func (m Open) targetRate(from, to time.Duration) float64 {
	if to <= from {
		return 0
	}
	c := m.curve()
	return (c.due(to) - c.due(from)) / (to - from).Seconds()
}

// curve is the model's target rate over the phase.
func (m Open) curve() curve {
	if len(m.Schedule) > 0 {
		return scheduleCurve(m.Schedule)
	}
	return constantCurve(m.Rate)
}

// Check implements Model.
func (m Open) Check(clients int) error {
	switch {
	case len(m.Schedule) > 0 && m.Rate != 0:
		return &ConfigError{Field: "rate", Value: m.Rate, Want: "give a rate or a schedule, not both"}
	case len(m.Schedule) > 0:
		return checkSchedule(m.Schedule)
	case m.Rate < 0 || math.IsNaN(m.Rate) || math.IsInf(m.Rate, 0):
		return &ConfigError{Field: "rate", Value: m.Rate, Want: "expected ops/s ≥ 0"}
	case m.Rate == 0:
		return &ConfigError{Field: "rate", Value: m.Rate, Want: "the open model needs a target rate > 0 ops/s"}
	case m.MaxBacklog < 0:
		return &ConfigError{Field: "max backlog", Value: m.MaxBacklog, Want: "need at least 1"}
	}
	return nil
}

func (m Open) drive(ph *phase, ops int64) string {
	m = m.withDefaults()
	o := &openPhase{ph: ph, m: m, ops: ops, queue: make(chan time.Duration, m.MaxBacklog)}
	backlog := o.backlog
	ph.backlog.Store(&backlog)
	var wg sync.WaitGroup
	for i, wc := range ph.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.worker(wc, ph.shard(i))
		}()
	}
	o.schedule()
	close(o.queue)
	wg.Wait()
	return fmt.Sprintf("scheduled=%d dropped_backlog_full=%d dropped_not_started=%d", o.scheduled.Load(), o.full.Load(), o.notStarted.Load())
}

// openPhase is the state of one phase under the open model.
type openPhase struct {
	ph  *phase
	m   Open
	ops int64 // 0: no count bound

	queue      chan time.Duration // intended offsets from ph.start
	scheduled  atomic.Int64       // operations the scheduler released or dropped
	full       atomic.Int64       // dropped at the backlog limit
	notStarted atomic.Int64       // dropped because the phase ended first
}

func (o *openPhase) backlog() int64 { return int64(len(o.queue)) }

// schedule releases every operation whose intended time has passed in one
// batch, and sleeps only until the next one is due: at 100 k ops/s arrivals
// are 10 µs apart, far below what a timer can wake for. The intended times
// are absolute, so late wake-ups never lower the rate; they show as
// response time.
func (o *openPhase) schedule() {
	ph := o.ph
	next := o.m.Arrival.epochs(seedFor(ph.cfg.Seed, streamArrivals, 0))
	rate := o.m.curve()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	now := time.Now()
	for o.ops == 0 || o.scheduled.Load() < o.ops {
		off, ok := rate.at(next())
		intended := ph.start.Add(off)
		if !ok || ph.expired(intended) {
			ph.holdUntilDeadline(timer)
			return
		}
		if intended.After(now) {
			now = time.Now()
			if intended.After(now) {
				if !ph.sleepUntil(timer, intended, true) {
					return
				}
				now = time.Now()
			}
		}
		if ph.stopped.Load() {
			return
		}
		o.scheduled.Add(1)
		select {
		case o.queue <- off:
		default:
			o.full.Add(1)
			ph.rec.AddDropped(1)
		}
	}
}

func (o *openPhase) worker(wc workload.Client, mc *measure.Shard) {
	ph := o.ph
	_, aware := ph.db.(driver.ScheduleAware)
	free := ph.start // when this client last became free
	for off := range o.queue {
		if ph.stopped.Load() {
			o.dropNotStarted()
			continue
		}
		started := time.Now()
		if ph.expired(started) {
			o.dropNotStarted()
			continue
		}
		intended := ph.start.Add(off)
		op, err := ph.do(wc, intended, aware)
		ended := time.Now()
		// The operation could start when it was due or when this client
		// was free, whichever came later: the rest of the wait is the
		// generator's lateness (scheduler wake-up, hand-off), not queueing
		// behind a busy system.
		ready := intended
		if free.After(ready) {
			ready = free
		}
		mc.RecordReady(measure.Op(op), intended, ready, started, ended, err)
		free = ended
	}
}

func (o *openPhase) dropNotStarted() {
	o.notStarted.Add(1)
	o.ph.rec.AddLate(1)
}

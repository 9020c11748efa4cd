package run

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workload"
)

// openPhase runs the open model: one scheduler computes every operation's
// intended start from the arrival process and queues it for a pool of
// workers, whatever the system's speed. Time spent in the queue counts in the
// response time; an operation that finds the queue full (MaxBacklog) is
// counted as dropped, and so is one still queued when the phase ends.
type openPhase struct {
	ph      *phase
	db      driver.DB
	clients []workload.Client
	cfg     Config
	ops     int64 // 0: no count bound

	queue      chan time.Duration // intended offsets from ph.start
	scheduled  atomic.Int64       // operations the scheduler released or dropped
	full       atomic.Int64       // dropped at the backlog limit
	notStarted atomic.Int64       // dropped because the phase ended first
}

func newOpenPhase(ph *phase, db driver.DB, clients []workload.Client, cfg Config, ops int64) *openPhase {
	return &openPhase{ph: ph, db: db, clients: clients, cfg: cfg, ops: ops,
		queue: make(chan time.Duration, cfg.MaxBacklog)}
}

func (o *openPhase) backlog() int64 { return int64(len(o.queue)) }

func (o *openPhase) endDetail() string {
	return fmt.Sprintf("scheduled=%d dropped_backlog_full=%d dropped_not_started=%d", o.scheduled.Load(), o.full.Load(), o.notStarted.Load())
}

func (o *openPhase) run() {
	var wg sync.WaitGroup
	for i, wc := range o.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.worker(wc, o.ph.recClient(i))
		}()
	}
	o.schedule()
	close(o.queue)
	wg.Wait()
}

// schedule releases every operation whose intended time has passed in one
// batch, and sleeps only until the next one is due: at 100 k ops/s arrivals
// are 10 µs apart, far below what a timer can wake for. The intended times
// are absolute, so late wake-ups never lower the rate; they show as
// response time.
func (o *openPhase) schedule() {
	ph := o.ph
	arr := newArrivals(o.cfg.Arrival, o.cfg.Rate, seedFor(o.cfg.Seed, streamArrivals, 0))
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	now := time.Now()
	for o.ops == 0 || o.scheduled.Load() < o.ops {
		off := arr.next()
		intended := ph.start.Add(off)
		if ph.expired(intended) {
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
	_, aware := o.db.(driver.ScheduleAware)
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
		op, err := do(ph.work, wc, o.db, o.cfg.OpTimeout, intended, aware)
		mc.Record(measure.Op(op), intended, started, time.Now(), err)
	}
}

func (o *openPhase) dropNotStarted() {
	o.notStarted.Add(1)
	o.ph.rec.AddDropped(1)
}

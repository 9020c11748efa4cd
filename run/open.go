package run

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/loadmodel"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workload"
)

// Open is the open load model: every operation's intended start comes from
// the Arrival process, whatever the system's speed, and a pool of clients
// performs them. An operation that finds every client busy waits, and the
// wait counts in its response time; one that finds MaxBacklog operations
// already waiting is counted as dropped, and so is one still waiting when
// the phase ends.
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
func (m Open) Settings() loadmodel.Load {
	m = m.withDefaults()
	s := loadmodel.Load{Model: OpenName, Rate: m.Rate, Arrival: m.Arrival.Name(), MaxBacklog: m.MaxBacklog}
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
	case checkRate("rate", m.Rate) != nil:
		return checkRate("rate", m.Rate)
	case m.Rate == 0:
		return &ConfigError{Field: "rate", Value: m.Rate, Want: "the open model needs a target rate > 0 ops/s"}
	case m.MaxBacklog < 0:
		return &ConfigError{Field: "max backlog", Value: m.MaxBacklog, Want: "need at least 1"}
	}
	return nil
}

func (m Open) drive(ph *phase, ops int64) string {
	m = m.withDefaults()
	o := &openPhase{ph: ph, m: m, ops: ops, lead: make(chan struct{}, 1), spin: newSpinWindow(ph.cfg.SpinWait)}
	o.arr = arrivals{next: m.Arrival.epochs(seedFor(ph.cfg.Seed, streamArrivals, 0)), curve: m.curve()}
	backlog := o.backlog
	ph.backlog.Store(&backlog)
	o.lead <- struct{}{}
	var wg sync.WaitGroup
	for i, wc := range ph.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.client(wc, ph.shard(i))
		}()
	}
	wg.Wait()
	o.mu.Lock()
	if !ph.stopped.Load() {
		o.fill(time.Now())
	}
	// Operations still waiting for a client when the phase ended.
	left := int64(o.arr.pending.len())
	o.arr.pending = fifo{}
	if o.arr.have {
		// Generated ahead but never due: the phase was stopped first.
		o.arr.have = false
		o.scheduled.Add(-1)
	}
	hold := o.arr.hold
	o.mu.Unlock()
	o.notStarted.Add(left)
	ph.rec.AddLate(left)
	if hold {
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		ph.holdUntilDeadline(timer)
	}
	return fmt.Sprintf("scheduled=%d dropped_backlog_full=%d dropped_not_started=%d %v late_after_sleep=%d late_lead=%d late_after_spin=%d",
		o.scheduled.Load(), o.full.Load(), o.notStarted.Load(), o.spin, o.lateSleep.Load(), o.lateLead.Load(), o.lateSpin.Load())
}

// openPhase is the state of one phase under the open model.
//
// There is no scheduler goroutine and no queue hand-off per operation: the
// clients take the arrivals themselves. One free client at a time, the
// leader (the holder of lead), takes the next arrival, sleeps until shortly
// before it, passes the lead to the next free client, spins until the
// intended start and performs the operation itself, so the wake-up that
// matters is its own and the next leader has the gap between arrivals to
// wake. Arrivals that came due while every client was busy wait in pending
// (the backlog, at most MaxBacklog, beyond which they are dropped) and are
// taken at once by the next client that is free: their wait is response time.
type openPhase struct {
	ph  *phase
	m   Open
	ops int64 // 0: no count bound

	lead chan struct{} // one token: the free client that waits for the next arrival
	spin *spinWindow   // used by the lead's holder only

	// Leaders' operations that started more than lateMark after their
	// intended start, by where the time went: the sleep returned after the
	// hand-off was due (the spin window did not cover it); the leader took
	// the lead too late to hand it on in time, without sleeping (the
	// previous hand-off was late, or arrivals come faster than hand-offs);
	// or neither, and the spin was late (the machine stalled the thread).
	lateSleep, lateLead, lateSpin atomic.Int64

	mu  sync.Mutex
	arr arrivals // under mu

	scheduled  atomic.Int64 // operations released (due or taken) or dropped
	full       atomic.Int64 // dropped at the backlog limit
	notStarted atomic.Int64 // dropped because the phase ended first
}

// arrivals is the open model's schedule as the clients consume it.
type arrivals struct {
	next  func() float64 // unit-rate epochs
	curve curve
	ahead time.Duration // the next arrival, generated but not yet due, when have
	have  bool
	// pending are arrivals that came due with no client free to take
	// them, oldest first (offsets from the phase start).
	pending fifo
	done    bool // nothing more to generate
	hold    bool // done because the schedule or the deadline ended: last the phase's time
}

// fill moves every arrival due at now into pending (dropping those that find
// it full) and keeps the first one not yet due in ahead. Called under mu.
func (o *openPhase) fill(now time.Time) {
	ph, a := o.ph, &o.arr
	for !a.done {
		if ph.stopped.Load() {
			return // stopped (Ctrl-C, deadline): generate no more
		}
		if !a.have {
			if o.ops > 0 && o.scheduled.Load() >= o.ops {
				a.done = true
				return
			}
			off, ok := a.curve.at(a.next())
			if !ok || ph.expired(ph.start.Add(off)) {
				a.done, a.hold = true, true
				return
			}
			a.ahead, a.have = off, true
			o.scheduled.Add(1)
		}
		if ph.start.Add(a.ahead).After(now) {
			return
		}
		a.have = false
		if a.pending.len() < o.m.MaxBacklog {
			a.pending.push(a.ahead)
			continue
		}
		o.full.Add(1)
		ph.rec.AddDropped(1)
	}
}

// claim hands the caller the oldest arrival that is due, else the next one
// to come; false when there is none left. Called under mu.
func (o *openPhase) claim(now time.Time) (time.Duration, bool) {
	o.fill(now)
	if off, ok := o.arr.pending.pop(); ok {
		return off, true
	}
	if o.arr.have {
		o.arr.have = false
		return o.arr.ahead, true
	}
	return 0, false
}

// lead1 waits for the lead and takes the next arrival with it. leading
// says the arrival is still to come and the caller holds the lead until it
// passes it on; otherwise the lead is passed on already. ok is false when
// the phase was stopped or the schedule is done (the lead is passed on, so
// every client finds out).
func (o *openPhase) lead1() (off time.Duration, leading, ok bool) {
	select {
	case <-o.lead:
	case <-o.ph.stopCh:
		return 0, false, false
	}
	if o.ph.stopped.Load() {
		o.lead <- struct{}{}
		return 0, false, false
	}
	o.mu.Lock()
	now := time.Now()
	off, ok = o.claim(now)
	o.mu.Unlock()
	if ok && o.ph.start.Add(off).After(now) {
		return off, true, true
	}
	o.lead <- struct{}{} // done, or due already: the next free client may lead at once
	return off, false, ok
}

// backlog reports how many due operations wait for a client; the runner
// calls it every interval, which also counts drops as they happen while
// every client is stuck.
func (o *openPhase) backlog() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.ph.stopped.Load() {
		o.fill(time.Now())
	}
	return int64(o.arr.pending.len())
}

// handoffLead is how long before its intended start a leader passes the lead
// on: time for the next free client to wake (a few µs when a core is free)
// before the arrival after it, without many clients spinning at once.
const handoffLead = 20 * time.Microsecond

// lateMark is the lateness from which a leader's start counts as late in
// the phase's end detail: issue 13's aim for the harness's p99.
const lateMark = 50 * time.Microsecond

func (o *openPhase) client(wc workload.Client, mc *measure.Shard) {
	ph := o.ph
	_, aware := ph.db.(driver.ScheduleAware)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	// idle is when this client would have become free had dbrig itself
	// taken no time: the ready time of its last operation plus that
	// operation's service time.
	idle := ph.start
	for {
		if ph.stopped.Load() {
			return
		}
		// An operation already due (a backlog) is taken at once, without
		// the lead: every free client drains the backlog in parallel.
		o.mu.Lock()
		o.fill(time.Now())
		off, due := o.arr.pending.pop()
		o.mu.Unlock()
		leading := false
		var woke time.Time // when a leader's sleep returned (or it took the lead, if it did not sleep)
		slept := false
		if !due {
			var ok bool
			if off, leading, ok = o.lead1(); !ok {
				return
			}
		}
		intended := ph.start.Add(off)
		if leading {
			// Sleep until SpinWait before the start (precisely: a
			// nanosleep for the last stretch), spin until handoffLead
			// before it, let the next free client lead, and spin to the
			// start.
			wake := intended.Add(-o.spin.window(time.Until(intended)))
			slept = time.Now().Before(wake)
			if !ph.sleep(timer, wake, true) {
				o.lead <- struct{}{}
				o.dropNotStarted()
				return
			}
			woke = time.Now()
			if slept {
				o.spin.observe(woke.Sub(wake))
			}
			if !ph.spinUntil(intended.Add(-handoffLead)) {
				o.lead <- struct{}{}
				o.dropNotStarted()
				return
			}
			o.lead <- struct{}{}
			// The next leader now waits in this P's run queue: spin
			// without yielding to it, or this client's start would wait
			// for it to settle (or for another thread to wake and take
			// this one).
			for time.Now().Before(intended) {
			}
		}
		started := time.Now()
		if leading && started.Sub(intended) > lateMark {
			switch {
			case !woke.After(intended.Add(-handoffLead)):
				o.lateSpin.Add(1)
			case slept:
				o.lateSleep.Add(1)
			default:
				o.lateLead.Add(1)
			}
		}
		if ph.expired(started) {
			o.dropNotStarted()
			continue
		}
		op, err := ph.do(wc, intended, aware)
		ended := time.Now()
		// The operation could start when it was due or when this client
		// would have been free, whichever came later: the rest of the wait
		// is the generator's lateness (wake-up, hand-off, a starved
		// process), not queueing behind a busy system. Chaining the ideal
		// times rather than taking the last actual end keeps a backlog that
		// dbrig itself built (say 80 ms without CPU, then operations back
		// to back) as dbrig's, on every operation it delayed.
		ready := intended
		if idle.After(ready) {
			ready = idle
		}
		mc.RecordReady(measure.Op(op), intended, ready, started, ended, err)
		idle = ready.Add(ended.Sub(started))
	}
}

func (o *openPhase) dropNotStarted() {
	o.notStarted.Add(1)
	o.ph.rec.AddLate(1)
}

// fifo is a queue of offsets that reuses its storage.
type fifo struct {
	buf  []time.Duration
	head int
}

func (f *fifo) len() int { return len(f.buf) - f.head }

func (f *fifo) push(x time.Duration) {
	if f.head > 0 && len(f.buf) == cap(f.buf) {
		n := copy(f.buf, f.buf[f.head:])
		f.buf, f.head = f.buf[:n], 0
	}
	f.buf = append(f.buf, x)
}

// pop takes the oldest offset; false when there is none.
func (f *fifo) pop() (time.Duration, bool) {
	if f.len() == 0 {
		return 0, false
	}
	x := f.buf[f.head]
	f.head++
	if f.head == len(f.buf) {
		f.buf, f.head = f.buf[:0], 0
	}
	return x, true
}

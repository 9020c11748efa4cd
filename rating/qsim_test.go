package rating

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
)

// qmodel performs a rating's experiments in virtual time (Options.perform):
// a single FIFO server of capacity operations per second, each operation
// holding it for an exponentially distributed time of mean 1/capacity
// (drawn from a generator seeded with the target, the run's length and
// how many runs at that target came before, so a
// rating's runs are the same every time), fed by the experiment's load model (the open
// model's constant arrivals through its client pool, or the closed model's
// clients back to back). It is the queue of the sim driver without a
// clock, a runner or a CPU: every interval is recorded by a real
// measure.Recorder with virtual times and goes through Execute's observers
// (stored, and watched by the early stopper) to the rating, so the search,
// the probe, early stopping, the majority rules and the time bookkeeping
// run as in a real rating, in milliseconds and whatever the machine's load.
type qmodel struct {
	capacity float64
	// vary, if set, scales the capacity of a run at target (ops/s or
	// clients), the nth time (0: the first) that target runs: noise,
	// lucky runs.
	vary func(target float64, nth int) float64
	// stallAt, stallFor: the server stops for stallFor at stallAt after
	// each experiment's store opened (a checkpoint that comes after some
	// seconds).
	stallAt, stallFor time.Duration
	// late, if set, is dbrig's own dispatch lag in the nth experiment
	// (0-based, the probe included): a stalled load generator.
	late func(n int) time.Duration
	// clock, if set, is the rating's clock too (Options.clock): each
	// experiment starts reset after the last one ended, and the clock
	// stands at its end afterwards, so the rating's time is virtual.
	clock *vclock
	reset time.Duration
	// cond, if set, is the store's condition before the nth experiment
	// (Options.condition); slow, if set, scales the capacity of the nth.
	cond func(n int) driver.Condition
	slow func(n int) float64
	// props are more properties of the data set (recordcount=1000 and these).
	props []string
	// long, longVary: runs that measure at least long (the final runs)
	// have their capacity scaled by longVary of how many such runs came
	// before.
	long     time.Duration
	longVary func(nth int) float64
	longs    int

	n     int             // experiments performed
	conds int             // conditions measured
	seen  map[float64]int // runs per target
	plans []*experiment.Plan
}

// options is a rating of the simulated store (its data lives as long as
// one experiment: reload) through the model.
func (m *qmodel) options(store string, o Options) Options {
	o.Base = experiment.Options{Driver: "sim", Store: store, Props: append([]string{"recordcount=1000"}, m.props...)}
	o.perform = m.perform
	if m.clock != nil {
		o.clock = m.clock.now
	}
	if m.cond != nil {
		o.condition = func() driver.Condition {
			c := m.cond(m.conds)
			m.conds++
			return c
		}
	}
	return o
}

// vclock is a virtual clock.
type vclock struct{ t time.Time }

func newVclock() *vclock { return &vclock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *vclock) now() time.Time { return c.t }

func (m *qmodel) perform(p *experiment.Plan) experiment.Performer {
	if m.seen == nil {
		m.seen = map[float64]int{}
	}
	n := m.n
	m.n++
	m.plans = append(m.plans, p)
	s := p.Config.Model.Settings()
	target := s.Rate
	if s.Model == run.ClosedName {
		target = float64(p.Config.Clients)
	}
	capacity := m.capacity
	nth := m.seen[target]
	if m.vary != nil {
		capacity *= m.vary(target, nth)
	}
	m.seen[target]++
	if m.slow != nil {
		capacity *= m.slow(n)
	}
	if m.longVary != nil && p.Config.Duration >= m.long {
		capacity *= m.longVary(m.longs)
		m.longs++
	}
	var lag time.Duration
	if m.late != nil {
		lag = m.late(n)
	}
	return func(ctx context.Context, _ *results.Store, _ int64, obs run.Observer) ([]measure.Summary, error) {
		origin := time.Now() // virtual time starts where the real one is
		if m.clock != nil {
			origin = m.clock.t.Add(m.reset)
		}
		q := &qrun{mean: float64(time.Second) / capacity, rng: rand.New(rand.NewPCG(uint64(nth)+1, math.Float64bits(target)^uint64(p.Config.Duration))), origin: origin, free: origin,
			stallAt: origin.Add(m.stallAt), stallFor: m.stallFor, lag: lag,
			clients: p.Config.Clients, rate: s.Rate, ops: p.Workload.Ops(), obs: obs}
		var sums []measure.Summary
		at := origin
		for _, ph := range []struct {
			name string
			dur  time.Duration
		}{{measure.PhaseWarmup, p.Config.Warmup}, {measure.PhaseMeasure, p.Config.Duration}} {
			if ph.dur <= 0 {
				continue
			}
			sum, end, err := q.phase(ctx, ph.name, at, ph.dur)
			sums = append(sums, sum)
			if m.clock != nil {
				m.clock.t = end
			}
			if err != nil {
				return sums, err
			}
			at = end
		}
		return sums, nil
	}
}

// qrun is one experiment of a qmodel.
type qrun struct {
	mean         float64 // service time, ns
	rng          *rand.Rand
	origin, free time.Time // the store opened; the server is free from
	stallAt      time.Time
	stallFor     time.Duration
	lag          time.Duration
	clients      int
	rate         float64 // open model: ops/s; 0: closed
	ops          []string
	obs          run.Observer
}

// serve puts an operation that reached the server at t through it and
// returns when it is done.
func (q *qrun) serve(t time.Time) time.Time {
	begin := t
	if q.free.After(begin) {
		begin = q.free
	}
	if q.stallFor > 0 && !begin.Before(q.stallAt) && begin.Before(q.stallAt.Add(q.stallFor)) {
		begin = q.stallAt.Add(q.stallFor)
	}
	q.free = begin.Add(time.Duration(-math.Log(1-q.rng.Float64()) * q.mean))
	return q.free
}

// qop is one operation's times (measure.Shard.RecordReady).
type qop struct{ intended, ready, started, ended time.Time }

// phase runs one phase from start for dur and returns its summary and end.
// Operations are generated in order; the server and the clients are FIFO,
// so they also end in order, and the intervals are cut as they pass.
func (q *qrun) phase(ctx context.Context, name string, start time.Time, dur time.Duration) (measure.Summary, time.Time, error) {
	deadline := start.Add(dur)
	var ops []qop
	late := int64(0)
	for k := 0; ; k++ {
		var o qop
		if q.rate > 0 { // open: constant arrivals, each waits for a free client
			o.intended = start.Add(time.Duration(float64(k) * float64(time.Second) / q.rate))
			if !o.intended.Before(deadline) {
				break
			}
			o.ready = o.intended
			if k >= q.clients && ops[k-q.clients].ended.After(o.ready) {
				o.ready = ops[k-q.clients].ended
			}
			if !o.ready.Before(deadline) { // still waiting for a client at the end
				late = int64(float64(dur)/float64(time.Second)*q.rate+0.999999) - int64(k)
				break
			}
			o.started = o.ready.Add(q.lag)
			o.ended = q.serve(o.ready) // the sim takes the intended start as the arrival
			if o.ended.Before(o.started) {
				o.ended = o.started
			}
		} else { // closed: each client issues its next when its last is done
			o.intended = start
			if k >= q.clients {
				o.intended = ops[k-q.clients].ended
			}
			if !o.intended.Before(deadline) {
				break
			}
			o.ready, o.started = o.intended, o.intended
			o.ended = q.serve(o.intended)
		}
		ops = append(ops, o)
	}
	// backlog at t: operations due but not yet with a client.
	backlog := func(t time.Time) int64 {
		due := sort.Search(len(ops), func(i int) bool { return ops[i].intended.After(t) })
		taken := sort.Search(len(ops), func(i int) bool { return ops[i].ready.After(t) })
		return int64(due - taken)
	}
	end := deadline
	if len(ops) > 0 && ops[len(ops)-1].ended.After(end) {
		end = ops[len(ops)-1].ended // in-flight operations are awaited
	}
	rec := measure.NewRecorder(q.ops)
	rec.SetStart(start)
	shard := rec.Shard()
	acc := measure.NewAccumulator(name, q.ops...)
	q.obs.Event(run.Event{Time: start, Kind: run.EventPhaseStart, Name: name,
		Detail: fmt.Sprintf("virtual: clients=%d rate=%g duration=%v", q.clients, q.rate, dur)})
	cut := func(t time.Time) error {
		iv := rec.Cut(name, t)
		iv.Backlog, iv.TargetRate = backlog(t), q.rate
		acc.Add(iv)
		q.obs.Interval(iv)
		return ctx.Err()
	}
	next, i := start.Add(time.Second), 0
	var err error
	for err == nil && next.Before(end) {
		for ; i < len(ops) && !ops[i].ended.After(next); i++ {
			o := ops[i]
			shard.RecordReady(0, o.intended, o.ready, o.started, o.ended, nil)
		}
		if err = cut(next); err != nil {
			end = next // stopped: what was in flight is not awaited
			break
		}
		next = next.Add(time.Second)
	}
	if err == nil {
		for ; i < len(ops); i++ {
			o := ops[i]
			shard.RecordReady(0, o.intended, o.ready, o.started, o.ended, nil)
		}
		rec.AddLate(late)
		err = cut(end)
	}
	q.obs.Event(run.Event{Time: end, Kind: run.EventPhaseEnd, Name: name})
	if err != nil {
		return acc.Summary(nil), end, fmt.Errorf("%s phase: %w", name, err)
	}
	return acc.Summary(nil), end, nil
}

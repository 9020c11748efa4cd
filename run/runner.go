package run

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workload"
)

// Observer receives what a run produces as it happens. Its methods are
// called from one goroutine (the caller's), in order, never concurrently.
type Observer interface {
	Interval(measure.Interval)
	Event(Event)
}

// Event kinds.
const (
	EventPhaseStart  = "phase_start"
	EventPhaseEnd    = "phase_end"
	EventInterrupted = "interrupted" // ctx was cancelled; Detail says what was awaited
)

// Event is a timestamped fact of the run (phase changes, interruption).
type Event struct {
	Time    time.Time
	Kind    string
	Name    string // phase name; for a fault, its name
	Detail  string
	Outcome string // faults: injected, healed, failed: why ("" for phases)
}

type nopObserver struct{}

func (nopObserver) Interval(measure.Interval) {}
func (nopObserver) Event(Event)               {}

// LoadOp is the op name the load phase records: one entry per Client.Load
// call, i.e. per batch of up to Config.LoadBatch records.
const LoadOp = "load"

// recorderFor returns a Recorder with one measure.Client per worker, up to
// 4 per CPU: beyond that workers share them (a measure.Client is safe for
// concurrent use and only GOMAXPROCS goroutines record at once), so a pool
// of hundreds of workers does not cost hundreds of histogram sets (~190 KB
// each) nor the time to allocate and merge them.
func recorderFor(ops []string, workers int) (*measure.Recorder, []*measure.Shard) {
	rec := measure.NewRecorder(ops)
	n := min(workers, max(8, 4*runtime.GOMAXPROCS(0)))
	shards := make([]*measure.Shard, n)
	for i := range shards {
		shards[i] = rec.Shard()
	}
	return rec, shards
}

// Load runs the load phase: LoadClients goroutines call Client.Load with
// batches of LoadBatch records until the workload's data set is inserted.
// The first error stops the phase (a partial data set is no base for a
// benchmark) and is returned with the summary so far.
func Load(ctx context.Context, db driver.DB, wl workload.Workload, cfg Config, obs Observer) (measure.Summary, error) {
	cfg, err := cfg.withDefaults(false)
	if err != nil {
		return measure.Summary{}, err
	}
	if obs == nil {
		obs = nopObserver{}
	}
	rec, shards := recorderFor([]string{LoadOp}, cfg.LoadClients)
	ph := newPhase(ctx, measure.PhaseLoad, rec, shards, cfg, cfg.LoadDuration)
	var records atomic.Int64
	sum, err := ph.run(ctx, obs, fmt.Sprintf("records=%d clients=%d batch=%d", wl.LoadCount(), cfg.LoadClients, cfg.LoadBatch),
		func() string { return fmt.Sprintf("records=%d", records.Load()) },
		func() {
			var wg sync.WaitGroup
			for i := 0; i < cfg.LoadClients; i++ {
				wc := wl.NewClient(i, seedFor(cfg.Seed, streamLoaders, i))
				mc := ph.shard(i)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !ph.stopped.Load() {
						started := time.Now()
						if ph.expired(started) {
							return // bounded by LoadDuration: the data set stays partial
						}
						n, err := wc.Load(ph.work, db, cfg.LoadBatch)
						ended := time.Now()
						if n == 0 && err == nil {
							return
						}
						records.Add(int64(n))
						mc.Record(0, started, started, ended, err)
						if err != nil {
							ph.fail(fmt.Errorf("load: loader %d after %d records: %w", i, records.Load(), err))
							return
						}
					}
				}()
			}
			wg.Wait()
		})
	sum.Records = records.Load()
	sum.Wanted = wl.LoadCount()
	return sum, err
}

// Run runs the warmup phase (if cfg.Warmup > 0) and the measure phase, and
// returns their summaries. Operation errors are counted, not fatal. When ctx
// is cancelled it stops issuing, waits for in-flight operations (at most
// cfg.Grace), flushes the last partial interval and returns the summaries so
// far with an error wrapping ctx's error.
func Run(ctx context.Context, db driver.DB, wl workload.Workload, cfg Config, obs Observer) ([]measure.Summary, error) {
	cfg, err := cfg.withDefaults(true)
	if err != nil {
		return nil, err
	}
	if obs == nil {
		obs = nopObserver{}
	}
	clients := make([]workload.Client, cfg.Clients)
	for i := range clients {
		clients[i] = wl.NewClient(i, seedFor(cfg.Seed, streamClients, i))
	}
	// One Recorder for both phases: each phase ends with a Cut after all its
	// clients returned, so no operation can land in the wrong phase.
	rec, shards := recorderFor(wl.Ops(), cfg.Clients)
	var sums []measure.Summary
	if cfg.Warmup > 0 {
		ph := newPhase(ctx, measure.PhaseWarmup, rec, shards, cfg, cfg.Warmup)
		ph.db, ph.clients = db, clients
		sum, err := ph.runModel(ctx, obs, 0)
		sums = append(sums, sum)
		if err != nil {
			return sums, err
		}
	}
	ph := newPhase(ctx, measure.PhaseMeasure, rec, shards, cfg, cfg.Duration)
	ph.db, ph.clients = db, clients
	sum, err := ph.runModel(ctx, obs, cfg.Operations)
	return append(sums, sum), err
}

// runModel runs the phase under the configured load model, bounded by ops
// (0: no count bound) and the phase's deadline.
func (ph *phase) runModel(ctx context.Context, obs Observer, ops int64) (measure.Summary, error) {
	dur := time.Duration(0)
	if !ph.deadline.IsZero() {
		dur = ph.deadline.Sub(ph.start)
	}
	detail := startDetail(ph.cfg.Model.Settings(), ph.cfg.Clients, ops, dur)
	var end string
	sum, err := ph.run(ctx, obs, detail, func() string { return end }, func() { end = ph.cfg.Model.drive(ph, ops) })
	return sum, err
}

// phase is the state shared by the workers of one phase.
type phase struct {
	name     string
	cfg      Config
	rec      *measure.Recorder
	shards   []*measure.Shard
	start    time.Time
	deadline time.Time // zero: no time bound

	stopped  atomic.Bool   // checked per operation: cheap, read-mostly
	stopCh   chan struct{} // wakes sleeping workers
	stopOnce sync.Once

	// work is the context of operations: unlike ctx it is not cancelled by
	// Ctrl-C, so in-flight operations finish and are recorded, until the
	// grace period ends.
	work       context.Context
	cancelWork context.CancelFunc

	// Set by Run for the warmup and measure phases.
	db      driver.DB
	clients []workload.Client
	// backlog, set by a model that queues operations (open), reports how many
	// wait for a client; read at every interval.
	backlog atomic.Pointer[func() int64]

	mu  sync.Mutex
	err error // first fatal error (load phase)
}

func newPhase(ctx context.Context, name string, rec *measure.Recorder, shards []*measure.Shard, cfg Config, dur time.Duration) *phase {
	ph := &phase{name: name, cfg: cfg, rec: rec, shards: shards, stopCh: make(chan struct{})}
	ph.work, ph.cancelWork = context.WithCancel(context.WithoutCancel(ctx))
	ph.start = time.Now()
	if dur > 0 {
		ph.deadline = ph.start.Add(dur)
	}
	ph.rec.SetStart(ph.start)
	return ph
}

func (ph *phase) shard(i int) *measure.Shard { return ph.shards[i%len(ph.shards)] }

func (ph *phase) stop() {
	ph.stopOnce.Do(func() {
		ph.stopped.Store(true)
		close(ph.stopCh)
	})
}

func (ph *phase) fail(err error) {
	ph.mu.Lock()
	if ph.err == nil {
		ph.err = err
	}
	ph.mu.Unlock()
	ph.stop()
}

// expired tells whether t is at or past the phase's deadline.
func (ph *phase) expired(t time.Time) bool {
	return !ph.deadline.IsZero() && !t.Before(ph.deadline)
}

// holdUntilDeadline waits until the phase's deadline (or its stop) when the
// schedule has nothing left to issue before it: a phase bounded by time
// lasts that time, so its throughput is over its real length (0.5 ops/s for
// 3 s is one or two operations in 3 s, not two in the 2 s they spanned).
func (ph *phase) holdUntilDeadline(timer *time.Timer) {
	if !ph.deadline.IsZero() {
		ph.sleepUntil(timer, ph.deadline, ph.cfg.SpinWait, false)
	}
}

// sleepUntil waits until t (spinning for the last spin) and reports false
// if the phase was stopped meanwhile. precise uses nanosleep for waits
// below a millisecond, which Go timers round up to ~1 ms; it blocks a thread,
// so it is for the open model's leading client and a few closed clients only.
func (ph *phase) sleepUntil(timer *time.Timer, t time.Time, spin time.Duration, precise bool) bool {
	if !ph.sleep(timer, t.Add(-spin), precise) {
		return false
	}
	return ph.spinUntil(t)
}

// sleep waits until t without spinning and reports false if the phase was
// stopped meanwhile; precise as for sleepUntil.
func (ph *phase) sleep(timer *time.Timer, t time.Time, precise bool) bool {
	for {
		d := time.Until(t)
		if d <= 0 {
			return !ph.stopped.Load()
		}
		if precise && d < shortSleep {
			// Go timers wake up to ~1 ms late for waits below 1 ms; a
			// nanosleep system call is late by tens of µs.
			nanosleep(d)
			continue
		}
		if precise {
			// A timer can be late by up to ~1 ms: wake that much early
			// and nanosleep the rest.
			d -= shortSleep
		}
		timer.Reset(d)
		select {
		case <-timer.C:
		case <-ph.stopCh:
			timer.Stop()
			return false
		}
	}
}

// spinUntil busy-waits (yielding to other goroutines) until t and reports
// false if the phase was stopped meanwhile.
func (ph *phase) spinUntil(t time.Time) bool {
	for time.Now().Before(t) {
		if ph.stopped.Load() {
			return false
		}
		runtime.Gosched()
	}
	return !ph.stopped.Load()
}

// run starts the workers, emits an Interval every cfg.Interval until they
// are done, and returns the phase's summary. On ctx cancellation it stops
// the workers and waits for them at most cfg.Grace (then cancels their
// operations and waits one more second at most).
func (ph *phase) run(ctx context.Context, obs Observer, startDetail string, endDetail func() string, workers func()) (measure.Summary, error) {
	obs.Event(Event{Time: ph.start, Kind: EventPhaseStart, Name: ph.name, Detail: startDetail})
	acc := measure.NewAccumulator(ph.name, ph.rec.Ops()...)
	emit := func(now time.Time) {
		iv := ph.rec.Cut(ph.name, now)
		if b := ph.backlog.Load(); b != nil {
			iv.Backlog = (*b)()
		}
		if ph.cfg.Model != nil && ph.name != measure.PhaseLoad {
			iv.TargetRate = ph.cfg.Model.targetRate(iv.Start.Sub(ph.start), iv.End.Sub(ph.start))
		}
		acc.Add(iv)
		obs.Interval(iv)
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		workers()
	}()
	tick := time.NewTicker(ph.cfg.Interval)
	defer tick.Stop()
	defer ph.cancelWork()

	ctxDone := ctx.Done()
	var grace, abandon <-chan time.Time
	interrupted, abandoned := false, false
loop:
	for {
		select {
		case <-done:
			break loop
		case <-tick.C:
			emit(time.Now())
		case <-ctxDone:
			ctxDone, interrupted = nil, true
			ph.stop()
			t := time.NewTimer(ph.cfg.Grace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			grace = nil
			ph.cancelWork()
			t := time.NewTimer(time.Second)
			defer t.Stop()
			abandon = t.C
		case <-abandon:
			abandoned = true
			break loop
		}
	}
	// Workers have all returned (unless abandoned), so the last Cut holds
	// everything they recorded.
	emit(time.Now())
	sum := acc.Summary(ph.rec.TakeErrors())

	var err error
	if interrupted {
		detail := "in-flight operations finished"
		if abandoned {
			detail = fmt.Sprintf("gave up on in-flight operations %v after the grace period", ph.cfg.Grace+time.Second)
		}
		obs.Event(Event{Time: time.Now(), Kind: EventInterrupted, Name: ph.name, Detail: detail})
		err = fmt.Errorf("load: %s phase interrupted: %w", ph.name, ctx.Err())
		if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
			err = fmt.Errorf("%w (%v)", err, cause)
		}
	}
	ph.mu.Lock()
	if ph.err != nil && err == nil {
		err = ph.err
	}
	ph.mu.Unlock()
	detail := fmt.Sprintf("ops=%d errors=%d dropped=%d", sum.Overall.Count, sum.Overall.Errors, sum.Dropped)
	if d := endDetail(); d != "" {
		detail += " " + d
	}
	obs.Event(Event{Time: time.Now(), Kind: EventPhaseEnd, Name: ph.name, Detail: detail})
	return sum, err
}

// do performs one operation of wc with the per-operation timeout, if any.
func (ph *phase) do(wc workload.Client, intended time.Time, aware bool) (int, error) {
	ctx, db, timeout := ph.work, ph.db, ph.cfg.OpTimeout
	if aware {
		ctx = driver.WithIntendedStart(ctx, intended)
	}
	if timeout <= 0 {
		return wc.Do(ctx, db)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return wc.Do(ctx, db)
}

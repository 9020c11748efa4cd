package measure

import (
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/errclass"
)

// InvalidOp names the extra operation slot that records operations whose
// index is outside the Recorder's op names (a workload bug): they are counted
// and reported under this name instead of being lost or panicking.
const InvalidOp = "INVALID-OP"

// Recorder collects the measurements of all clients of one run. Each client
// records into its own Shard (no shared lock on the hot path); Cut swaps
// every Shard's buffers and merges them into one Interval.
type Recorder struct {
	names []string // op names, plus InvalidOp at the end

	mu     sync.Mutex // guards shards
	shards []*Shard

	cutMu   sync.Mutex // serialises Cut; guards start, errs and spread
	start   time.Time  // start of the interval being recorded
	spread  []bool     // per op: every shard has its histograms (see Cut)
	errs    *errorSet  // distinct error messages since the last TakeErrors
	dropped atomic.Int64
	late    atomic.Int64
}

// NewRecorder returns a Recorder for the given operation names (the
// workload's Ops, in order). The first interval starts now; see SetStart.
func NewRecorder(ops []string) *Recorder {
	names := make([]string, len(ops)+1)
	copy(names, ops)
	names[len(ops)] = InvalidOp
	return &Recorder{names: names, start: time.Now(), errs: newErrorSet(phaseMessages)}
}

// Ops returns the operation names the Recorder was made with.
func (r *Recorder) Ops() []string { return r.names[:len(r.names)-1] }

// SetStart sets the start of the interval being recorded (e.g. a phase start).
func (r *Recorder) SetStart(t time.Time) {
	r.cutMu.Lock()
	r.start = t
	r.cutMu.Unlock()
}

// Shard returns a new recording shard. A Shard is meant for one goroutine
// (a client of the run), but it is safe for concurrent use, so several
// goroutines may share one when memory matters more than contention (each
// Shard holds two pairs of histograms, ~190 KB each, per op type it has seen).
func (r *Recorder) Shard() *Shard {
	c := &Shard{cur: newBuffer(len(r.names)), spare: newBuffer(len(r.names))}
	r.mu.Lock()
	r.shards = append(r.shards, c)
	r.mu.Unlock()
	return c
}

// AddDropped counts operations the open model dropped at the backlog limit.
func (r *Recorder) AddDropped(n int64) { r.dropped.Add(n) }

// AddLate counts operations the open model dropped because the phase ended
// before a client was free for them (they count in Dropped too).
func (r *Recorder) AddLate(n int64) {
	r.dropped.Add(n)
	r.late.Add(n)
}

// Cut ends the current interval at end: it swaps every Shard's active
// buffer with its spare one, merges what was recorded into a new Interval
// (tagged with phase) and starts the next interval at end. Every recorded
// operation lands in exactly one Interval. Interval.Backlog is left to the
// caller, who knows the queue.
func (r *Recorder) Cut(phase string, end time.Time) Interval {
	r.cutMu.Lock()
	defer r.cutMu.Unlock()

	r.mu.Lock()
	clients := append([]*Shard(nil), r.shards...)
	r.mu.Unlock()

	ops := make([]OpInterval, len(r.names))
	var lag *hdr.Histogram
	for _, c := range clients {
		c.mu.Lock()
		c.cur, c.spare = c.spare, c.cur
		c.mu.Unlock()
		if l := c.spare.lag; l.TotalCount() > 0 || c.spare.lagZeros > 0 {
			if lag == nil {
				lag = NewHistogram()
			}
			if l.TotalCount() > 0 {
				lag.Merge(l)
				l.Reset()
			}
			_ = lag.RecordValues(0, c.spare.lagZeros)
			c.spare.lagZeros = 0
		}
		// c.spare is now ours alone until the next Cut swaps it back.
		for i := range c.spare.ops {
			b := &c.spare.ops[i]
			if b.count == 0 {
				continue
			}
			o := &ops[i]
			if o.Response == nil {
				o.Op = r.names[i]
				o.Response, o.Service = NewHistogram(), NewHistogram()
			}
			o.Count += b.count
			o.Errors += b.errors
			for ci, n := range b.classes {
				if n != 0 {
					if o.Classes == nil {
						o.Classes = make(map[string]int64)
					}
					o.Classes[string(errclass.All[ci])] += n
				}
			}
			o.Response.Merge(b.resp)
			o.Service.Merge(b.svc)
			if b.msgs != nil {
				b.msgs.mergeInto(r.errs, r.names[i])
			}
			b.reset()
		}
	}
	r.spreadHistograms(clients, ops)
	iv := Interval{Phase: phase, Start: r.start, End: end, Dropped: r.dropped.Swap(0), Late: r.late.Swap(0), Lag: lag}
	for _, o := range ops {
		if o.Count > 0 {
			iv.Ops = append(iv.Ops, o)
		}
	}
	r.start = end
	return iv
}

// spreadHistograms gives every shard, in both its buffers, the histograms
// of each operation type this interval saw, once per type: a shard makes
// them lazily at its own first such operation, which in the open model can
// come minutes into a run (a few clients do most operations), and the
// process's memory then grew for minutes (~190 KB per histogram, a soak
// showed +9 MB between its first and second minute). Types a workload never
// issues still cost nothing. Called by Cut (under cutMu); the spare buffers
// are Cut's alone, the current ones are set under the shard's lock.
func (r *Recorder) spreadHistograms(clients []*Shard, ops []OpInterval) {
	if r.spread == nil {
		r.spread = make([]bool, len(r.names))
	}
	for i := range ops {
		if ops[i].Count == 0 || r.spread[i] {
			continue
		}
		r.spread[i] = true
		for _, c := range clients {
			c.spare.ops[i].ensure()
			resp, svc := NewHistogram(), NewHistogram() // not under the lock
			c.mu.Lock()
			if b := &c.cur.ops[i]; b.resp == nil {
				b.resp, b.svc = resp, svc
			}
			c.mu.Unlock()
		}
	}
}

// TakeErrors returns the distinct error messages merged by Cut since the
// previous TakeErrors (at most a few per op and class; the rest are counted
// under OtherMessages) and forgets them.
func (r *Recorder) TakeErrors() []ErrorSample {
	r.cutMu.Lock()
	defer r.cutMu.Unlock()
	out := r.errs.samples()
	r.errs = newErrorSet(phaseMessages)
	return out
}

// Shard records the operations of one client (or a few); see Recorder.Shard.
type Shard struct {
	// mu is held for a few nanoseconds per Record and once per Cut, so it is
	// practically uncontended: cheaper and simpler to prove correct than a
	// lock-free swap that would have to wait for in-flight writers anyway.
	mu    sync.Mutex
	cur   *buffer
	spare *buffer
}

// Record records one operation whose client was free when it was due: see
// RecordReady.
func (c *Shard) Record(op Op, intended, started, ended time.Time, err error) {
	c.RecordReady(op, intended, intended, started, ended, err)
}

// RecordReady records one operation: response time is ended − intended,
// service time ended − started, and dispatch lag started − ready, where
// ready is when the operation could have started at the earliest — its
// intended start, or later, when its client was still busy with the one
// before (microseconds, clamped into the histogram range). The lag is the
// load generator's own lateness: it is part of the response time, but the
// system under test did not cause it. A non-nil err counts as an error of
// class errclass.Of(err). It does not allocate unless err is non-nil.
func (c *Shard) RecordReady(op Op, intended, ready, started, ended time.Time, err error) {
	if ready.Before(intended) {
		ready = intended
	}
	lag := clampUS(started.Sub(ready))
	resp := clampUS(ended.Sub(intended))
	svc := clampUS(ended.Sub(started))
	var class int
	var msg string
	if err != nil {
		// Outside the lock: classification and formatting can be slow.
		class = errclass.Of(err).Index()
		if class < 0 {
			class = errclass.Other.Index()
		}
		msg = err.Error()
	}

	c.mu.Lock()
	ops := c.cur.ops
	i := int(op)
	if i < 0 || i >= len(ops)-1 {
		i = len(ops) - 1 // InvalidOp
	}
	b := &ops[i]
	b.ensure()                   // first operation of this type in this buffer: a one-off allocation
	_ = b.resp.RecordValue(resp) // in range by clampUS
	_ = b.svc.RecordValue(svc)
	if lag == 0 {
		// The closed model without pacing never lags: a counter keeps the
		// harness's ceiling where it was (a histogram record costs ~5 ns).
		c.cur.lagZeros++
	} else {
		_ = c.cur.lag.RecordValue(lag)
	}
	b.count++
	if err != nil {
		b.errors++
		b.classes[class]++
		if b.msgs == nil {
			b.msgs = newErrorSet(clientMessages)
		}
		b.msgs.add(errclass.All[class], msg, 1)
	}
	c.mu.Unlock()
}

func clampUS(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	if us < 0 {
		return 0
	}
	if us > HistMaxUS {
		return HistMaxUS
	}
	return us
}

type buffer struct {
	ops      []opBuf
	lag      *hdr.Histogram // dispatch lag of the buffer's operations that lagged
	lagZeros int64          // and how many did not lag at all
}

// newBuffer allocates the lag histogram up front: lag above 0 µs can be rare
// (a punctual generator), so a lazily made one would appear minutes into a
// run, one shard at a time, and the process's memory would grow by ~190 KB
// per buffer long after the start (a soak showed it as RSS rising for
// minutes). Operation histograms stay lazy: every operation type a workload
// issues reaches every shard within its first seconds, and types it never
// issues cost nothing.
func newBuffer(n int) *buffer { return &buffer{ops: make([]opBuf, n), lag: NewHistogram()} }

// opBuf is one op type in one client's buffer. Histograms are allocated on
// first use and kept (reset) across swaps.
type opBuf struct {
	resp, svc *hdr.Histogram
	count     int64
	errors    int64
	classes   [len(errclass.All)]int64
	msgs      *errorSet
}

// ensure makes the histograms if they are missing.
func (b *opBuf) ensure() {
	if b.resp == nil {
		b.resp, b.svc = NewHistogram(), NewHistogram()
	}
}

func (b *opBuf) reset() {
	b.resp.Reset()
	b.svc.Reset()
	b.count, b.errors = 0, 0
	b.classes = [len(errclass.All)]int64{}
	if b.msgs != nil {
		b.msgs.clear()
	}
}

package report

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/run"
)

// ProgressLine draws the live progress line of a run from its intervals and
// events: one line per second, rewritten in place on a terminal.
type ProgressLine struct {
	w      io.Writer
	tty    bool
	bounds map[string]Bound

	// the current phase, for the ETA
	phaseName  string
	phaseStart time.Time
	phaseOps   int64
	phaseDur   time.Duration
	done       int64
}

// Bound is how a phase ends, for the ETA: after Ops operations and/or Dur.
type Bound struct {
	Ops int64
	Dur time.Duration
}

// NewProgressLine draws to w; bounds are each phase's, by name.
func NewProgressLine(w io.Writer, bounds map[string]Bound) *ProgressLine {
	return &ProgressLine{w: w, tty: isTerminal(w), bounds: bounds}
}

// PlanProgress is the progress line of a run of plan p.
func PlanProgress(w io.Writer, p *experiment.Plan) *ProgressLine {
	return NewProgressLine(w, map[string]Bound{
		measure.PhaseLoad:    {Ops: p.LoadOps()},
		measure.PhaseWarmup:  {Dur: p.Config.Warmup},
		measure.PhaseMeasure: {Ops: p.Config.Operations, Dur: p.Config.Duration},
	})
}

// Interval implements run.Observer.
func (p *ProgressLine) Interval(iv measure.Interval) {
	for _, op := range iv.Ops {
		p.done += op.Count
	}
	line := Progress(iv, time.Since(p.phaseStart), p.eta())
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\033[K", line) // rewrite one line in place
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// Event implements run.Observer.
func (p *ProgressLine) Event(ev run.Event) {
	if ev.Kind != run.EventPhaseStart {
		return
	}
	if p.tty && p.phaseName != "" {
		fmt.Fprintln(p.w) // end the previous phase's progress line
	}
	fmt.Fprintf(p.w, "[%s]\n", ev.Name)
	b := p.bounds[ev.Name]
	p.phaseName, p.phaseStart, p.phaseOps, p.phaseDur, p.done = ev.Name, ev.Time, b.Ops, b.Dur, 0
}

// eta is the time left in the current phase, or -1 when unknown.
func (p *ProgressLine) eta() time.Duration {
	elapsed := time.Since(p.phaseStart)
	eta := time.Duration(-1)
	if p.phaseDur > 0 {
		eta = max(p.phaseDur-elapsed, 0)
	}
	if p.phaseOps > 0 && p.done > 0 {
		byOps := time.Duration(float64(elapsed) * float64(p.phaseOps-p.done) / float64(p.done))
		if eta < 0 || byOps < eta {
			eta = max(byOps, 0)
		}
	}
	return eta
}

// Close ends the line being rewritten; nil-safe.
func (p *ProgressLine) Close() {
	if p != nil && p.tty {
		fmt.Fprintln(p.w)
	}
}

// isTerminal tells whether w is a character device (a terminal).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// BenchProgress is the progress line of a bench: one Observer handed to the
// bench before it starts, drawing each run's own line as Next switches to it
// (the hooks are copied when the bench starts, so the observer cannot change).
type BenchProgress struct {
	w   io.Writer
	mu  sync.Mutex
	cur *ProgressLine
}

// NewBenchProgress draws to w.
func NewBenchProgress(w io.Writer) *BenchProgress { return &BenchProgress{w: w} }

// Next ends the previous run's line and starts plan p's.
func (b *BenchProgress) Next(p *experiment.Plan) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cur.Close()
	b.cur = PlanProgress(b.w, p)
}

// Interval implements run.Observer.
func (b *BenchProgress) Interval(iv measure.Interval) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur != nil {
		b.cur.Interval(iv)
	}
}

// Event implements run.Observer.
func (b *BenchProgress) Event(ev run.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur != nil {
		b.cur.Event(ev)
	}
}

// Close ends the last run's line; nil-safe.
func (b *BenchProgress) Close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cur.Close()
}

package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/run"
)

// progress draws the live progress line of a run from its intervals and
// events: one line per second, rewritten in place on a terminal.
type progress struct {
	w      io.Writer
	tty    bool
	bounds map[string]bound

	// the current phase, for the ETA
	phaseName  string
	phaseStart time.Time
	phaseOps   int64
	phaseDur   time.Duration
	done       int64
}

// bound is how a phase ends, for the ETA: after ops operations and/or dur.
type bound struct {
	ops int64
	dur time.Duration
}

func newProgress(w io.Writer, bounds map[string]bound) *progress {
	return &progress{w: w, tty: isTerminal(w), bounds: bounds}
}

// Interval implements run.Observer.
func (p *progress) Interval(iv measure.Interval) {
	for _, op := range iv.Ops {
		p.done += op.Count
	}
	line := report.Progress(iv, time.Since(p.phaseStart), p.eta())
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\033[K", line) // rewrite one line in place
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// Event implements run.Observer.
func (p *progress) Event(ev run.Event) {
	if ev.Kind != run.EventPhaseStart {
		return
	}
	if p.tty && p.phaseName != "" {
		fmt.Fprintln(p.w) // end the previous phase's progress line
	}
	fmt.Fprintf(p.w, "[%s]\n", ev.Name)
	b := p.bounds[ev.Name]
	p.phaseName, p.phaseStart, p.phaseOps, p.phaseDur, p.done = ev.Name, ev.Time, b.ops, b.dur, 0
}

// eta is the time left in the current phase, or -1 when unknown.
func (p *progress) eta() time.Duration {
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

// close ends the line being rewritten; nil-safe.
func (p *progress) close() {
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

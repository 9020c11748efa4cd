package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
)

// observer receives every interval and event of a run as it happens: it
// writes them to the results store at once (a crash loses at most the last
// second), shows the live progress line and feeds the HdrHistogram log.
type observer struct {
	ctx    context.Context
	e      *env
	store  *results.Store
	runID  int64
	quiet  bool
	tty    bool // stderr is a terminal: the progress line is rewritten in place
	hdr    *measure.LogWriter
	hdrF   *os.File
	err    error // first error writing results; the run goes on
	warned bool

	// progress of the current phase, for the ETA
	phaseName  string
	phaseStart time.Time
	phaseOps   int64
	phaseDur   time.Duration
	done       int64
	started    map[string]time.Time // phase → when it began (from the runner's events)
	bounds     map[string]bound
}

func newObserver(ctx context.Context, e *env, store *results.Store, runID int64, f *runFlags, bounds map[string]bound) *observer {
	o := &observer{ctx: ctx, e: e, store: store, runID: runID, quiet: f.quiet, started: map[string]time.Time{}, bounds: bounds,
		tty: isTerminal(e.stderr)}
	if f.hdrlog != "" {
		fh, err := os.Create(f.hdrlog)
		if err == nil {
			o.hdrF = fh
			o.hdr, err = measure.NewLogWriter(fh, time.Now(), fmt.Sprintf("dbrig run %d", runID))
		}
		if err != nil {
			o.fail(fmt.Errorf("hdr log %s: %w", f.hdrlog, err))
		}
	}
	return o
}

func (o *observer) fail(err error) {
	if o.err == nil {
		o.err = err
	}
	if !o.warned {
		fmt.Fprintf(o.e.stderr, "\nwarning: %v (the run goes on)\n", err)
		o.warned = true
	}
}

// bound is how a phase ends, for the ETA: after ops operations and/or dur.
type bound struct {
	ops int64
	dur time.Duration
}

// Interval implements run.Observer.
func (o *observer) Interval(iv measure.Interval) {
	if err := o.store.AddInterval(o.ctx, o.runID, iv); err != nil {
		o.fail(fmt.Errorf("store interval: %w", err))
	}
	if o.hdr != nil {
		if err := o.hdr.WriteInterval(iv); err != nil {
			o.fail(fmt.Errorf("hdr log: %w", err))
		}
	}
	for _, op := range iv.Ops {
		o.done += op.Count
	}
	if !o.quiet {
		line := report.Progress(iv, time.Since(o.phaseStart), o.eta())
		if o.tty {
			fmt.Fprintf(o.e.stderr, "\r%s\033[K", line) // rewrite one line in place
		} else {
			fmt.Fprintln(o.e.stderr, line)
		}
	}
}

// Event implements run.Observer.
func (o *observer) Event(ev run.Event) {
	err := o.store.AddEvent(o.ctx, o.runID, results.Event{Time: ev.Time, Kind: ev.Kind, Name: ev.Name, Detail: ev.Detail})
	if err != nil {
		o.fail(fmt.Errorf("store event: %w", err))
	}
	if ev.Kind != run.EventPhaseStart {
		return
	}
	if !o.quiet {
		if o.tty && o.phaseName != "" {
			fmt.Fprintln(o.e.stderr) // end the previous phase's progress line
		}
		fmt.Fprintf(o.e.stderr, "[%s]\n", ev.Name)
	}
	o.started[ev.Name] = ev.Time
	b := o.bounds[ev.Name]
	o.phaseName, o.phaseStart, o.phaseOps, o.phaseDur, o.done = ev.Name, ev.Time, b.ops, b.dur, 0
}

// eta is the time left in the current phase, or -1 when unknown.
func (o *observer) eta() time.Duration {
	elapsed := time.Since(o.phaseStart)
	eta := time.Duration(-1)
	if o.phaseDur > 0 {
		eta = max(o.phaseDur-elapsed, 0)
	}
	if o.phaseOps > 0 && o.done > 0 {
		byOps := time.Duration(float64(elapsed) * float64(o.phaseOps-o.done) / float64(o.done))
		if eta < 0 || byOps < eta {
			eta = max(byOps, 0)
		}
	}
	return eta
}

func (o *observer) close() {
	if !o.quiet && o.tty {
		fmt.Fprintln(o.e.stderr)
	}
	if o.hdrF != nil {
		o.hdrF.Close()
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

package experiment

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/outfile"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
)

// observers receives every interval and event of a run as it happens: it
// writes them to the results store at once (a crash loses at most the last
// second), feeds the HdrHistogram log, notes when phases start, and passes
// everything on to the caller's observer. A failed write is reported once
// and the run goes on: the measurement matters more than one lost row.
type observers struct {
	ctx   context.Context
	store *results.Store
	runID int64
	out   *Outcome
	warn  func(error)
	then  run.Observer // the caller's, or nil

	hdr  *measure.LogWriter
	hdrF *outfile.File

	// the load phase's size, to warn once when it would take hours
	loadWant, loadBatch, loadDone int64
	loadStart                     time.Time
	loadWarned                    bool

	emitMu    sync.Mutex      // the runner and the fault injector both emit
	onMeasure func(time.Time) // called when the measure phase starts (faults count from it)

	mu     sync.Mutex // err and warned: the metrics sampler fails from its own goroutine
	err    error      // first failed write
	warned bool
}

func newObservers(ctx context.Context, store *results.Store, runID int64, out *Outcome, warn func(error)) *observers {
	return &observers{ctx: ctx, store: store, runID: runID, out: out, warn: warn}
}

func (o *observers) openHDRLog(path string, base time.Time, comment string) error {
	f, err := outfile.Create(path)
	if err != nil {
		return fmt.Errorf("hdr log %s: %w", path, err)
	}
	w, err := measure.NewLogWriter(f, base, comment)
	if err != nil {
		f.Abort()
		return fmt.Errorf("hdr log %s: %w", path, err)
	}
	o.hdr, o.hdrF = w, f
	return nil
}

func (o *observers) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err = err
	}
	if !o.warned {
		o.warn(fmt.Errorf("%w (the run goes on)", err))
		o.warned = true
	}
}

// Interval implements run.Observer.
func (o *observers) Interval(iv measure.Interval) {
	o.emitMu.Lock()
	defer o.emitMu.Unlock()
	if err := o.store.AddInterval(o.ctx, o.runID, iv); err != nil {
		o.fail(fmt.Errorf("store interval: %w", err))
	}
	if iv.Phase == measure.PhaseLoad {
		o.checkLoadETA(iv)
	}
	if o.hdr != nil {
		if err := o.hdr.WriteInterval(iv); err != nil {
			o.fail(fmt.Errorf("hdr log: %w", err))
		}
	}
	if o.then != nil {
		o.then.Interval(iv)
	}
}

// Event implements run.Observer.
func (o *observers) Event(ev run.Event) {
	o.emitMu.Lock()
	defer o.emitMu.Unlock()
	err := o.store.AddEvent(o.ctx, o.runID, results.Event{Time: ev.Time, Kind: ev.Kind, Name: ev.Name, Detail: ev.Detail, Outcome: ev.Outcome})
	if err != nil {
		o.fail(fmt.Errorf("store event: %w", err))
	}
	if ev.Kind == run.EventPhaseStart {
		o.out.PhaseStarts[ev.Name] = ev.Time
		if ev.Name == measure.PhaseMeasure && o.onMeasure != nil {
			o.onMeasure(ev.Time)
		}
	}
	if ev.Kind == EventFault || ev.Kind == EventFaultStart || ev.Kind == EventFaultEnd { // scenario's kinds
		o.out.Faults = append(o.out.Faults, ev)
	}
	if o.then != nil {
		o.then.Event(ev)
	}
}

// loadETAWarning is how long a load may take before dbrig says so.
const loadETAWarning = time.Hour

// checkLoadETA warns once, early in the load phase, when the data set
// would take more than loadETAWarning to load at the rate seen so far.
func (o *observers) checkLoadETA(iv measure.Interval) {
	if o.loadWarned || o.loadWant == 0 {
		return
	}
	if o.loadStart.IsZero() {
		o.loadStart = iv.Start
	}
	for _, op := range iv.Ops {
		o.loadDone += op.Count * o.loadBatch
	}
	elapsed := iv.End.Sub(o.loadStart)
	if elapsed < time.Second || o.loadDone == 0 {
		return
	}
	rate := float64(o.loadDone) / elapsed.Seconds()
	if eta := time.Duration(float64(o.loadWant-o.loadDone) / rate * float64(time.Second)); eta > loadETAWarning {
		o.loadWarned = true
		o.warn(fmt.Errorf("loading %d records at %.0f records/s would take about %v: a smaller recordcount, or dbrig load --duration to load part of it",
			o.loadWant, rate, eta.Round(time.Minute)))
	}
}

// close puts the HDR log in place (whatever the run's outcome: what was
// measured is kept) and returns the first failed write, if any.
func (o *observers) close() error {
	o.mu.Lock()
	err := o.err
	o.mu.Unlock()
	if o.hdrF != nil {
		err = errors.Join(err, o.hdrF.Commit())
	}
	return err
}

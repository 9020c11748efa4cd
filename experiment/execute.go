package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/scenario"
	"github.com/dbrig/dbrig/spec"
)

// Version is dbrig's version, stored with every run.
const Version = "0.1.0"

// Run statuses, as stored.
const (
	StatusDone        = "done"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	StatusStopped     = results.StatusStopped // ended early by its caller's rule (EarlyStop)
)

// EarlyStop is implemented by the cause a caller cancels a run's context
// with when its own rule ended the run early (a rating's SLA early stop, once
// the verdict is certain): such a run is stored "stopped", not "interrupted".
type EarlyStop interface {
	error
	EarlyStop()
}

// Hooks let a caller watch an experiment without this package printing
// anything. Every field is optional.
type Hooks struct {
	// Started is called once the run is stored, before the load phase.
	Started func(Started)
	// Observer receives every interval and event as it happens (after the
	// store has them), e.g. to draw a progress line.
	Observer run.Observer
	// Warn receives problems that do not stop the run (a server version that
	// could not be read, a results write that failed).
	Warn func(error)
	// ClusterUp is called once a local cluster is ready, with its nodes.
	ClusterUp func([]cluster.Node)
	// Perform, if set, performs the phases instead of this process (a
	// distributed run: package workers merges what its workers measure).
	Perform Performer
	// OnWorkers performs a run of an experiment file with workers: N
	// (package workers, through the command); see workers.go.
	OnWorkers RunOnWorkers
	// WrapDB, when set, stands between the runner and the driver for every
	// operation of the run (a rating records the keys it writes); it must
	// keep the capabilities the runner looks for (driver.BatchInserter,
	// driver.ScheduleAware).
	WrapDB func(driver.DB) driver.DB
	// Store, when set, is the open results store p.Store names: the run is
	// written to it rather than to a store opened (connected, its schema
	// checked) for this run alone, and Execute does not close it. A rating
	// passes the store it holds for all its experiments.
	Store *results.Store
}

// Started describes a run that was just stored.
type Started struct {
	RunID  int64
	Target string // the driver's target, without secrets
	Store  string // the results store's display name
}

// Outcome is what a stored run ended with.
type Outcome struct {
	RunID  int64
	Status string // StatusDone, StatusFailed, StatusInterrupted or StatusStopped
	Phases []measure.Summary
	// PhaseStarts holds when each phase began, from the runner's events.
	PhaseStarts map[string]time.Time
	// Origin is the driver's time origin when it has one (driver.TimeOrigin).
	Origin time.Time
	// Nodes are the local cluster's nodes (none for an embedded or external
	// system).
	Nodes []cluster.Node
	// Faults are the events of the faults injected, in order.
	Faults []run.Event
	// Impacts is what each fault cost, computed from the stored run when it
	// ended and stored with it.
	Impacts []analysis.Impact
	// Verify is the read-back of a verify: true run (nil: not verified).
	Verify *results.Verification
	// Metrics are the workload's headline metrics (workload.Headliner) and
	// the result of its consistency checks, as stored with the run.
	Metrics []results.RunMetric
	// StoreErr is set when part of the run could not be written to the
	// results store (a full disk, a lost connection): the run is then not
	// completely stored, though what was written before stays readable.
	StoreErr error
}

// Measured returns the measure phase's summary, if the run got that far.
func (o *Outcome) Measured() (measure.Summary, bool) { return measure.Measured(o.Phases) }

// Execute opens the driver and the results store, stores the run, performs
// its phases and finishes the run. A nil Outcome means nothing was stored
// (bad input, a driver that would not open, a store that would not open);
// otherwise the run has a final status whatever happened, what was measured
// is stored, and the error (if any) says why it failed or was interrupted.
func Execute(ctx context.Context, p *Plan, h Hooks) (*Outcome, error) {
	p, err := p.again()
	if err != nil {
		return nil, err
	}
	warn := h.Warn
	if warn == nil {
		warn = func(error) {}
	}
	s := &stage{p: p, h: h, warn: warn, nodes: p.Attached}
	plugins := p.plugins()
	// Torn down whatever happens, also after Ctrl-C (ctx is done then),
	// after the driver and the store closed (defers run last first).
	tearDown, err := s.setUp(ctx, plugins)
	if err != nil {
		return nil, err
	}
	defer tearDown()
	scratch, err := makeScratch(p.Driver)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	db, err := p.Registry.Open(ctx, p.Driver, driver.Config{Props: p.Props, Dir: scratch})
	if err != nil {
		if IsInput(err) {
			return nil, input(err)
		}
		return nil, fmt.Errorf("open %s: %w", p.Driver, err)
	}
	defer db.Close()
	// Every reader has read its properties now: what nobody read is a typo.
	if err := p.Props.Unknown(); err != nil {
		return nil, input(err)
	}
	if err := p.checkMethods(db); err != nil {
		return nil, err
	}
	if err := p.prepareData(ctx, db); err != nil {
		return nil, err
	}
	store := h.Store
	if store == nil {
		if store, err = results.Open(ctx, p.Store); err != nil {
			return nil, err
		}
		defer store.Close()
	}

	info := p.runInfo(ctx, db, warn)
	runID, err := store.CreateRun(ctx, info)
	if err != nil {
		return nil, err
	}
	if h.Started != nil {
		h.Started(Started{RunID: runID, Target: info.Target, Store: store.Name()})
	}

	// From here on, whatever happens, what was measured is stored and the
	// run gets a final status. Writes use a context that outlives Ctrl-C.
	wctx := context.WithoutCancel(ctx)
	out := &Outcome{RunID: runID, Status: StatusDone, PhaseStarts: map[string]time.Time{}, Nodes: s.nodes}
	if o, ok := db.(driver.TimeOrigin); ok {
		out.Origin = o.Origin()
	}
	obs := p.observe(wctx, store, runID, out, h, warn)
	if len(s.nodes) > 0 {
		if err := store.AddNodes(wctx, runID, storedNodes(s.nodes)); err != nil {
			obs.fail(err)
		}
	}
	if len(p.Faults) > 0 {
		if err := store.AddFaultPlan(wctx, runID, scenario.Stored(p.Faults)); err != nil {
			obs.fail(err)
		}
	}
	s.store, s.runID, s.fail = store, runID, obs.fail
	stopPlugins := s.start(wctx, plugins)
	stopFaults := s.startFaults(wctx, obs)
	var tr *tracker
	if p.Verify {
		tr = newTracker(db)
	}
	if len(p.Faults) > 0 && s.c != nil {
		if tr == nil {
			tr = &tracker{db: db}
		}
		tr.tl = newTimeline(info.Start)
	}
	var sums []measure.Summary
	var runErr error
	if h.Perform != nil {
		// WrapDB does not reach the workers' drivers: a rating runs in one
		// process (see ShareError for what workers refuse).
		sums, runErr = h.Perform(ctx, store, runID, obs)
	} else {
		runDB := trackedDB(db, tr)
		if h.WrapDB != nil {
			runDB = h.WrapDB(runDB)
		}
		sums, runErr = p.perform(ctx, runDB, obs)
	}
	if runErr == nil {
		runErr = mostlyFailed(sums)
	}
	stopFaults() // a pause under way is healed before the cluster goes down
	if p.Verify && tr != nil && ctx.Err() == nil {
		v := tr.verify(wctx, verifyTimeout(p))
		out.Verify = &v
		if err := store.AddVerification(wctx, runID, v); err != nil {
			obs.fail(err)
		}
	}
	stopPlugins()
	storeErr := obs.close()
	for _, sum := range sums {
		if err := store.AddPhase(wctx, runID, sum); err != nil {
			storeErr = errors.Join(storeErr, fmt.Errorf("store phase %s: %w", sum.Phase, err))
		}
	}
	metrics, afterErr := p.afterRun(wctx, db, store, runID, sums, runErr)
	out.Metrics = metrics
	out.Phases = sums
	return out, finish(ctx, store, out, tr, errors.Join(runErr, storeErr, afterErr), storeErr)
}

// mostlyFailed is the error of a run whose load or measure phase mostly
// failed (measure.FailedShare): its figures describe errors, so it is not
// done but failed, and says how many operations failed.
func mostlyFailed(sums []measure.Summary) error {
	for _, s := range sums {
		if s.Phase == measure.PhaseWarmup {
			continue
		}
		if err := s.MostlyFailed(); err != nil {
			return err
		}
	}
	return nil
}

// observe is the run's observers: the store first, then the HDR log and
// the caller's observer.
func (p *Plan) observe(wctx context.Context, store *results.Store, runID int64, out *Outcome, h Hooks, warn func(error)) *observers {
	obs := newObservers(wctx, store, runID, out, warn)
	if p.Config.LoadDuration == 0 {
		obs.loadWant, obs.loadBatch = p.Workload.LoadCount(), p.recordsPerLoadOp()
	}
	if p.HDRLog != "" {
		if err := obs.openHDRLog(p.HDRLog, time.Now(), fmt.Sprintf("dbrig run %d", runID)); err != nil {
			obs.fail(err)
		}
	}
	if h.Observer != nil {
		obs.then = h.Observer
	}
	return obs
}

// startFaults fires the plan's faults on the cluster (or on Kubernetes)
// from the measure phase's start, as events through obs; the returned stop
// ends the injector, healing a fault still under way.
func (s *stage) startFaults(wctx context.Context, obs *observers) (stop func()) {
	p := s.p
	if len(p.Faults) == 0 || (s.c == nil && !scenario.KubeOnly(p.Faults)) {
		return func() {}
	}
	in := scenario.NewInjector(p.Faults, s.c, s.nw, p.Config.Seed, scenario.Redacting(p.Props, obs.Event))
	obs.onMeasure = in.MeasureStarted
	obs.then = in.Watch(obs.then) // conditional triggers watch the seconds
	fctx, cancel := context.WithCancel(wctx)
	done := make(chan struct{})
	go func() { defer close(done); in.Run(fctx) }()
	return func() { cancel(); <-done }
}

// finish gives the stored run its final status from runErr (and ctx: an
// interrupt), then stores its fault timeline and the faults' impacts; it
// returns runErr with what failed here, and sets out.StoreErr (storeErr
// and the writes here).
func finish(ctx context.Context, store *results.Store, out *Outcome, tr *tracker, runErr, storeErr error) error {
	wctx := context.WithoutCancel(ctx)
	runID := out.RunID
	msg := ""
	switch {
	case errors.Is(runErr, context.Canceled) && ctx.Err() != nil:
		out.Status, msg = StatusInterrupted, "interrupted by signal"
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			msg = cause.Error() // a caller stopped it, and said why (dbrig rate's early stop)
			var es EarlyStop
			if errors.As(cause, &es) {
				out.Status = StatusStopped
			}
		}
	case runErr != nil:
		out.Status, msg = StatusFailed, runErr.Error()
	}
	if err := store.FinishRun(wctx, runID, out.Status, time.Now(), msg); err != nil {
		storeErr = errors.Join(storeErr, err)
		runErr = errors.Join(runErr, err)
	}
	if tr != nil && tr.tl != nil && !out.PhaseStarts[measure.PhaseMeasure].IsZero() {
		if err := store.AddTimeline(wctx, runID, tr.tl.since(out.PhaseStarts[measure.PhaseMeasure])); err != nil {
			storeErr = errors.Join(storeErr, err)
			runErr = errors.Join(runErr, err)
		}
	}
	if len(out.Faults) > 0 && storeErr == nil {
		if err := storeImpacts(wctx, store, out); err != nil {
			storeErr = err
			runErr = errors.Join(runErr, err)
		}
	}
	out.StoreErr = storeErr
	return runErr
}

// PreloadedError is the bad input of a load into a table that already holds
// records: it would fail on the first duplicate key, after the run started.
type PreloadedError struct {
	Driver, Table string
	LoadOnly      bool // dbrig load, which has no --skip-load
}

func (e *PreloadedError) Error() string {
	hint := "use --skip-load (dataset.load: false) to run on the loaded data, or --recreate (dataset.recreate: true) to drop it and load again"
	if e.LoadOnly {
		hint = "use --recreate to drop it and load again, or run on it with dbrig run --skip-load"
	}
	return fmt.Sprintf("table %s of %s already holds records: loading it again would fail on duplicate keys; %s", e.Table, e.Driver, hint)
}

// prepareData makes the store ready for the load, before the run is stored:
// with Recreate it drops the benchmark data; otherwise a table that already
// holds records (where the driver can tell, driver.Preloaded) is bad input.
func (p *Plan) prepareData(ctx context.Context, db driver.DB) error {
	if handled, err := p.prepareWorkload(ctx, db); handled {
		return err
	}
	if p.SkipLoad {
		return nil
	}
	table := tableOf(p.Workload)
	held := int64(0)
	if pre, ok := db.(driver.Preloaded); ok {
		// Asked before Reset too: SQL drivers reset the tables they know.
		n, err := pre.Records(ctx, table)
		if err != nil {
			return fmt.Errorf("look for records of an earlier load: %w", err)
		}
		held = n
	}
	if !p.Recreate {
		if held > 0 {
			return &InputError{Err: &PreloadedError{Driver: p.Driver, Table: table, LoadOnly: p.LoadOnly}}
		}
		return nil
	}
	r, ok := db.(driver.Resetter)
	if !ok {
		return &InputError{Err: fmt.Errorf("recreate: driver %s cannot drop its data (no driver.Resetter); remove it by hand", p.Driver)}
	}
	if err := r.Reset(ctx); err != nil {
		return fmt.Errorf("recreate: drop the data of %s: %w", p.Driver, err)
	}
	return nil
}

// perform runs the phases: load (unless skipped), then warmup and measure.
func (p *Plan) perform(ctx context.Context, db driver.DB, obs run.Observer) ([]measure.Summary, error) {
	var sums []measure.Summary
	if !p.SkipLoad {
		sum, err := run.Load(ctx, db, p.Workload, p.Config, obs)
		sums = append(sums, sum)
		if err != nil {
			return sums, fmt.Errorf("load phase: %w", err)
		}
	}
	if p.LoadOnly {
		return sums, nil
	}
	measured, err := run.Run(ctx, db, p.Workload, p.Config, obs)
	return append(sums, measured...), err
}

// commandLine renders the command as stored: from its arguments, each
// -p value redacted by what its key declares, the store address by its own
// format, and anything else that looks like a URL or DSN by pattern.
func (p *Plan) commandLine() string {
	if p.Args == nil {
		return spec.Redact(p.Command)
	}
	out := []string{"dbrig"}
	next := ""
	for _, a := range p.Args {
		shown := a
		flag, val, hasVal := strings.Cut(a, "=")
		switch {
		case next == "prop":
			shown = p.showProp(a)
		case next == "store":
			shown = results.DisplayName(a)
		case hasVal && (flag == "-p" || flag == "--p"):
			shown = flag + "=" + p.showProp(val)
		case hasVal && (flag == "-store" || flag == "--store"):
			shown = flag + "=" + results.DisplayName(val)
		default:
			shown = spec.Redact(a)
		}
		next = ""
		switch a {
		case "-p", "--p":
			next = "prop"
		case "-store", "--store":
			next = "store"
		}
		out = append(out, shellQuote(shown))
	}
	return strings.Join(out, " ")
}

// showProp redacts a "key=value" as the property would be.
func (p *Plan) showProp(kv string) string {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return kv
	}
	return k + "=" + p.Props.ShowValue(strings.TrimSpace(k), strings.TrimSpace(v))
}

// shellQuote quotes an argument the way a shell would need it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// storeImpacts computes what the run's faults cost from what was stored
// (as any later report would) and stores it.
func storeImpacts(ctx context.Context, store *results.Store, out *Outcome) error {
	runs, err := analysis.ReadRuns(ctx, store, []int64{out.RunID})
	if err != nil {
		return fmt.Errorf("impacts: %w", err)
	}
	out.Impacts = analysis.Impacts(runs[0])
	ops, err := store.Timeline(ctx, out.RunID)
	if err != nil {
		return fmt.Errorf("impacts: %w", err)
	}
	out.Impacts = analysis.Precise(out.Impacts, ops)
	rows := make([]results.Impact, len(out.Impacts))
	for i, im := range out.Impacts {
		rows[i] = results.Impact{Fault: im.Fault, Target: im.Detail, Outcome: im.Outcome,
			StartMS: im.Start.Milliseconds(), EndMS: im.End.Milliseconds(),
			BaselineP50: im.Baseline.P50, BaselineP95: im.Baseline.P95, BaselineP99: im.Baseline.P99,
			FaultP50: im.During.P50, FaultP95: im.During.P95, FaultP99: im.During.P99,
			AfterP50: im.After.P50, AfterP95: im.After.P95, AfterP99: im.After.P99,
			ThroughputChangePct: im.ThroughputChangePct, Errors: im.During.Errors + im.After.Errors,
			UnavailableMS: im.UnavailableMS, RecoveryCut: im.RecoveryCut}
		if im.Recovery != nil {
			ms := im.Recovery.Milliseconds()
			rows[i].RecoveryMS = &ms
		}
	}
	return store.AddImpacts(ctx, out.RunID, rows)
}

// runInfo is the run's context as stored: what ran, where, how.
func (p *Plan) runInfo(ctx context.Context, db driver.DB, warn func(error)) results.RunInfo {
	version := ""
	if v, ok := db.(driver.Versioner); ok {
		var err error
		if version, err = v.ServerVersion(ctx); err != nil {
			warn(fmt.Errorf("server version of %s: %w", p.Driver, err))
		}
		version = driver.VersionOnly(p.Driver, version)
	}
	target := p.Driver
	if d, ok := db.(driver.Describer); ok {
		target = spec.Redact(d.Target())
	}
	info := results.RunInfo{
		Name: p.Name, Tags: p.Tags, Command: p.commandLine(),
		System: p.Driver, Driver: p.Driver, ServerVersion: version, Target: target,
		Workload: p.WorkloadName(), Props: p.Props.Map(),
		Load: p.Config.Settings(),
		Host: results.HostInfo(), DbrigVersion: Version, Start: time.Now(), Spec: p.SpecText,
	}
	if p.LoadOnly {
		info.Load.Model = "load"
	}
	return info
}

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload/ycsb"
)

// runFlags are the flags of `dbrig run` and `dbrig load`. YCSB's own flags
// (-P, -p, -threads, -target, -db, -s) are accepted as they are.
type runFlags struct {
	propFiles, props, tags listFlag
	driver                 string
	clients                int
	rate                   float64
	model, arrival         string
	duration, warmup       time.Duration
	think, opTimeout       time.Duration
	seed                   int64
	maxBacklog, batch      int
	store, name, hdrlog    string
	jsonOut, ycsbOut       bool
	quiet, skipLoad        bool
	set                    map[string]bool // flags given explicitly
}

func (f *runFlags) define(fs *flag.FlagSet, withRun bool) {
	fs.Var(&f.propFiles, "P", "YCSB property file, or a built-in workload name (workloada … workloadf, custom); repeatable")
	fs.Var(&f.props, "p", "property key=value, overrides -P; repeatable")
	fs.StringVar(&f.driver, "driver", "pebble", "system to drive: "+strings.Join(registry().Names(), ", "))
	fs.StringVar(&f.driver, "db", "pebble", "alias of --driver (YCSB)")
	fs.IntVar(&f.clients, "clients", 1, "concurrent clients (open model: size of the client pool); property threadcount")
	fs.IntVar(&f.clients, "threads", 1, "alias of --clients (YCSB)")
	fs.StringVar(&f.store, "store", "", "results database: a SQLite path or postgres://… (default: per-user data path)")
	fs.StringVar(&f.name, "name", "", "a name for this run")
	fs.Var(&f.tags, "tag", "a tag for this run; repeatable")
	fs.IntVar(&f.batch, "batch", run.DefaultLoadBatch, "records per insert batch in the load phase (1 = no batching)")
	fs.BoolVar(&f.quiet, "quiet", false, "no live progress line")
	fs.BoolVar(&f.jsonOut, "json", false, "print a machine-readable summary to stdout (the table goes to stderr)")
	fs.Bool("s", false, "accepted for YCSB compatibility (status is always shown)")
	if !withRun {
		return
	}
	fs.Float64Var(&f.rate, "rate", 0, "target throughput in ops/s (0 = as fast as possible); property target")
	fs.Float64Var(&f.rate, "target", 0, "alias of --rate (YCSB)")
	fs.StringVar(&f.model, "model", "", "load model: closed or open (default: open when a rate is given, else closed)")
	fs.StringVar(&f.arrival, "arrival", run.Constant, "open model arrival process: constant or poisson")
	fs.DurationVar(&f.duration, "duration", 0, "measure for at most this long; property maxexecutiontime (seconds)")
	fs.DurationVar(&f.warmup, "warmup", 0, "run this long before measuring (not counted)")
	fs.DurationVar(&f.think, "think", 0, "closed model without rate: think time after each operation")
	fs.DurationVar(&f.opTimeout, "timeout", 0, "per-operation timeout (0 = none)")
	fs.Int64Var(&f.seed, "seed", 0, "random seed (0 = pick one; it is stored with the run)")
	fs.IntVar(&f.maxBacklog, "max-backlog", run.DefaultMaxBacklog, "open model: operations waiting for a client before new ones are dropped")
	fs.StringVar(&f.hdrlog, "hdrlog", "", "also write an HdrHistogram interval log to this file")
	fs.BoolVar(&f.ycsbOut, "ycsb", false, "also print YCSB-compatible summary lines")
	fs.BoolVar(&f.skipLoad, "skip-load", false, "skip the load phase (the store already holds the data)")
}

func parseRunFlags(name string, e *env, args []string, withRun bool) (*runFlags, error) {
	f := &runFlags{set: map[string]bool{}}
	fs := newFlagSet("dbrig "+name, e.stderr)
	f.define(fs, withRun)
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, errHelp
	}
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	if len(pos) > 0 {
		return nil, usagef("dbrig %s: unexpected argument %q (properties are given as -p key=value)", name, pos[0])
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	return f, nil
}

// setup is everything a run needs, resolved from flags and properties.
type setup struct {
	props    *spec.Props
	specText string
	wl       *ycsb.Workload
	cfg      run.Config
	db       driver.DB
	tmpDir   string
}

func (s *setup) close() {
	if s.db != nil {
		s.db.Close()
	}
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
	}
}

// prepare reads properties, builds the workload and the load config, and opens
// the driver. Nothing is stored yet: bad input leaves no run behind.
func prepare(ctx context.Context, f *runFlags, withRun bool) (*setup, error) {
	props, specText, err := buildProps(f.propFiles, f.props)
	if err != nil {
		return nil, err
	}
	s := &setup{props: props, specText: specText}
	if s.wl, err = ycsb.New(props); err != nil {
		return nil, &inputError{err}
	}
	if s.cfg, err = loadConfig(f, props, withRun); err != nil {
		return nil, &inputError{err}
	}
	s.tmpDir, err = os.MkdirTemp("", "dbrig-"+f.driver+"-")
	if err != nil {
		return nil, err
	}
	s.db, err = registry().Open(ctx, f.driver, driver.Config{Props: props, Dir: s.tmpDir})
	if err != nil {
		s.close()
		var pe *spec.PropError
		if errors.As(err, &pe) || strings.HasPrefix(err.Error(), "unknown driver") {
			return nil, &inputError{err}
		}
		return nil, fmt.Errorf("open %s: %w", f.driver, err)
	}
	if err := props.Unknown(); err != nil {
		s.close()
		return nil, &inputError{err}
	}
	return s, nil
}

// loadConfig merges flags (which win) with YCSB's properties threadcount,
// target, operationcount and maxexecutiontime.
func loadConfig(f *runFlags, p *spec.Props, withRun bool) (run.Config, error) {
	p.Known("db", "status.interval", "measurement.interval")
	clients, err := p.IntMin("threadcount", 1, 1)
	if err != nil {
		return run.Config{}, err
	}
	if f.set["clients"] || f.set["threads"] {
		clients = int64(f.clients)
		// Drivers size their connection pools from threadcount, as YCSB's do.
		p.Set("threadcount", strconv.FormatInt(clients, 10), spec.Source{Flag: "--clients"})
	}
	if clients < 1 {
		return run.Config{}, usagef("--clients %d: expected at least 1", clients)
	}
	cfg := run.Config{Clients: int(clients), LoadBatch: f.batch, Seed: f.seed}
	if f.batch < 1 {
		return cfg, usagef("--batch %d: expected at least 1", f.batch)
	}
	if cfg.Seed == 0 {
		cfg.Seed = time.Now().UnixNano()
	}
	ops, err := p.IntMin("operationcount", 1000, 0)
	if err != nil {
		return cfg, err
	}
	rate, err := p.Float("target", 0)
	if err != nil {
		return cfg, err
	}
	maxSecs, err := p.Float("maxexecutiontime", 0)
	if err != nil {
		return cfg, err
	}
	if !withRun {
		return cfg, cfg.Check(false)
	}
	if f.set["rate"] || f.set["target"] {
		rate = f.rate
	}
	if rate < 0 {
		return cfg, usagef("--rate %g: expected ops/s >= 0", rate)
	}
	cfg.Rate = rate
	cfg.Operations = ops
	cfg.Duration = time.Duration(maxSecs * float64(time.Second))
	if f.set["duration"] {
		cfg.Duration = f.duration
	}
	switch f.model {
	case "":
		cfg.Model = run.Closed
		if rate > 0 {
			cfg.Model = run.Open
		}
	case "open", "closed":
		cfg.Model = run.Model(f.model)
	default:
		return cfg, usagef("--model %q: expected open or closed", f.model)
	}
	cfg.Arrival = f.arrival
	cfg.Warmup = f.warmup
	cfg.ThinkTime = f.think
	cfg.OpTimeout = f.opTimeout
	cfg.MaxBacklog = f.maxBacklog
	if cfg.Operations == 0 && cfg.Duration == 0 {
		return cfg, usagef("the run needs a bound: operationcount > 0 (-p operationcount=N) and/or --duration")
	}
	return cfg, cfg.Check(true)
}

func runCmd(ctx context.Context, e *env, args []string) error {
	f, err := parseRunFlags("run", e, args, true)
	if err != nil {
		return err
	}
	return execute(ctx, e, f, true, "dbrig run "+strings.Join(args, " "))
}

func loadCmd(ctx context.Context, e *env, args []string) error {
	f, err := parseRunFlags("load", e, args, false)
	if err != nil {
		return err
	}
	return execute(ctx, e, f, false, "dbrig load "+strings.Join(args, " "))
}

// execute performs a run and prints its summary.
func execute(ctx context.Context, e *env, f *runFlags, withRun bool, cmdline string) error {
	out, err := perform(ctx, e, f, withRun, cmdline)
	if out == nil {
		return err
	}
	printSummary(e, f, out.runID, out.status, out.sums)
	switch out.status {
	case "interrupted":
		return errInterrupted
	case "failed":
		return fmt.Errorf("run %d failed: %w", out.runID, err)
	}
	return err
}

// outcome is what a stored run ended with.
type outcome struct {
	runID        int64
	status       string // done | failed | interrupted
	sums         []measure.Summary
	db           driver.DB            // closed; for drivers with more to tell (sim's origin)
	phaseStarted map[string]time.Time // when each phase began
}

// perform stands a run up and stores it as it goes. A nil outcome means
// nothing was stored (bad input, or the store could not be opened).
func perform(ctx context.Context, e *env, f *runFlags, withRun bool, cmdline string) (*outcome, error) {
	s, err := prepare(ctx, f, withRun)
	if err != nil {
		return nil, err
	}
	defer s.close()
	store, err := results.Open(ctx, f.store)
	if err != nil {
		return nil, err
	}
	defer store.Close()

	version := ""
	if v, ok := s.db.(driver.Versioner); ok {
		if version, err = v.ServerVersion(ctx); err != nil {
			fmt.Fprintf(e.stderr, "warning: server version of %s: %v\n", f.driver, err)
		}
	}
	target := f.driver
	if d, ok := s.db.(driver.Describer); ok {
		target = spec.Redact(d.Target())
	}
	info := results.RunInfo{
		Name: f.name, Tags: f.tags, Command: spec.Redact(cmdline),
		System: f.driver, Driver: f.driver, ServerVersion: version, Target: target,
		Workload: workloadName(f.propFiles), Props: s.props.Map(),
		Load: results.LoadModel{
			Model: string(s.cfg.Model), Clients: s.cfg.Clients, Rate: s.cfg.Rate, Arrival: s.cfg.Arrival,
			ThinkTime: s.cfg.ThinkTime, Warmup: s.cfg.Warmup, Duration: s.cfg.Duration,
			Operations: s.cfg.Operations, Seed: s.cfg.Seed,
		},
		Host: results.HostInfo(), DbrigVersion: Version, Start: time.Now(), Spec: s.specText,
	}
	if !withRun {
		info.Load.Model = "load"
	}
	runID, err := store.CreateRun(ctx, info)
	if err != nil {
		return nil, err
	}
	if !f.quiet {
		fmt.Fprintf(e.stderr, "run %d: %s on %s (%s); results in %s\n", runID, info.Workload, f.driver, target, store.Name())
	}

	// From here on, whatever happens, what was measured is stored and the
	// run gets a final status. Writes use a context that outlives Ctrl-C.
	wctx := context.WithoutCancel(ctx)
	obs := newObserver(wctx, e, store, runID, f, map[string]bound{
		measure.PhaseLoad:    {ops: (s.wl.LoadCount() + int64(s.cfg.LoadBatch) - 1) / int64(s.cfg.LoadBatch)},
		measure.PhaseWarmup:  {dur: s.cfg.Warmup},
		measure.PhaseMeasure: {ops: s.cfg.Operations, dur: s.cfg.Duration},
	})
	sums, runErr := drive(ctx, s, f, withRun, obs)
	obs.close()
	for _, sum := range sums {
		if err := store.AddPhase(wctx, runID, sum); err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("store phase %s: %w", sum.Phase, err))
		}
	}
	runErr = errors.Join(runErr, obs.err)
	out := &outcome{runID: runID, status: "done", sums: sums, db: s.db, phaseStarted: obs.started}
	msg := ""
	switch {
	case errors.Is(runErr, context.Canceled) && ctx.Err() != nil:
		out.status, msg = "interrupted", "interrupted by signal"
	case runErr != nil:
		out.status, msg = "failed", runErr.Error()
	}
	if err := store.FinishRun(wctx, runID, out.status, time.Now(), msg); err != nil {
		runErr = errors.Join(runErr, err)
	}
	return out, runErr
}

// drive runs the phases: load (unless skipped), then warmup and measure.
func drive(ctx context.Context, s *setup, f *runFlags, withRun bool, obs *observer) ([]measure.Summary, error) {
	var sums []measure.Summary
	if !f.skipLoad {
		sum, err := run.Load(ctx, s.db, s.wl, s.cfg, obs)
		sums = append(sums, sum)
		if err != nil {
			return sums, fmt.Errorf("load phase: %w", err)
		}
	}
	if !withRun {
		return sums, nil
	}
	run, err := run.Run(ctx, s.db, s.wl, s.cfg, obs)
	return append(sums, run...), err
}

func printSummary(e *env, f *runFlags, runID int64, status string, sums []measure.Summary) {
	table := e.stdout
	if f.jsonOut {
		table = e.stderr
	}
	fmt.Fprintln(table)
	report.Summary(table, report.Header{RunID: runID, Name: f.name, System: f.driver, Workload: workloadName(f.propFiles), Status: status}, sums)
	if f.ycsbOut {
		for _, s := range sums {
			if s.Phase == measure.PhaseMeasure {
				report.YCSB(table, s)
			}
		}
	}
	fmt.Fprintf(table, "run %d stored (%s); see: dbrig runs show %d\n", runID, status, runID)
	if f.jsonOut {
		report.JSON(e.stdout, runID, status, sums)
	}
}

func workloadName(files []string) string {
	if len(files) == 0 {
		return "workloada"
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(baseName(f), ".properties")
	}
	return strings.Join(names, "+")
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

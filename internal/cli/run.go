package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/livemetrics"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/workers"
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
	force                  bool
	quiet, skipLoad        bool
	recreate               bool
	cpus                   string
	wf                     workerFlags     // --workers N and its companions (worker.go)
	live                   liveFlags       // --metrics, --remote-write (live.go)
	set                    map[string]bool // flags given explicitly
}

func (f *runFlags) define(fs *flag.FlagSet, withRun bool) {
	fs.Var(&f.propFiles, "P", "YCSB property file, or a built-in workload name (workloada … workloadf, custom, tpcc, tsworkloada, tsworkload_template, devops); repeatable")
	fs.Var(&f.props, "p", "property key=value, overrides -P; repeatable")
	fs.StringVar(&f.driver, "driver", all.Default, "system to drive: "+strings.Join(registry().Names(), ", "))
	fs.StringVar(&f.driver, "db", all.Default, "alias of --driver (YCSB)")
	fs.IntVar(&f.clients, "clients", 1, "concurrent clients (open model: size of the client pool); property threadcount")
	fs.IntVar(&f.clients, "threads", 1, "alias of --clients (YCSB)")
	fs.StringVar(&f.store, "store", "", "results database: a SQLite path or postgres://… (default: per-user data path)")
	fs.StringVar(&f.name, "name", "", "a name for this run")
	fs.Var(&f.tags, "tag", "a tag for this run; repeatable")
	fs.IntVar(&f.batch, "batch", run.DefaultLoadBatch, "records per insert batch in the load phase (1 = no batching)")
	fs.BoolVar(&f.quiet, "quiet", false, "no live progress line")
	fs.BoolVar(&f.jsonOut, "json", false, "print a machine-readable summary to stdout (the table goes to stderr)")
	fs.Bool("s", false, "accepted for YCSB compatibility (status is always shown)")
	fs.BoolVar(&f.recreate, "recreate", false, "drop the benchmark data of an earlier load first, then load")
	fs.StringVar(&f.cpus, "cpus", "", cpusUsage)
	f.wf.define(fs)
	f.live.define(fs)
	if !withRun {
		fs.DurationVar(&f.duration, "duration", 0, "stop loading after this long (the data set is then partial, and says so)")
		return
	}
	fs.Float64Var(&f.rate, "rate", 0, "target throughput in ops/s (0 = as fast as possible); property target")
	fs.Float64Var(&f.rate, "target", 0, "alias of --rate (YCSB)")
	fs.StringVar(&f.model, "model", "", "load model: closed or open (default: open when a rate is given, else closed)")
	fs.StringVar(&f.arrival, "arrival", run.ConstantName, "open model arrival process: constant or poisson")
	fs.DurationVar(&f.duration, "duration", 0, "measure for at most this long; property maxexecutiontime (seconds)")
	fs.DurationVar(&f.warmup, "warmup", 0, "run this long before measuring (not counted)")
	fs.DurationVar(&f.think, "think", 0, "closed model without rate: think time after each operation")
	fs.DurationVar(&f.opTimeout, "timeout", 0, "per-operation timeout (0 = none)")
	fs.Int64Var(&f.seed, "seed", 0, "random seed (0 = pick one; it is stored with the run)")
	fs.IntVar(&f.maxBacklog, "max-backlog", run.DefaultMaxBacklog, "open model: operations waiting for a client before new ones are dropped")
	fs.StringVar(&f.hdrlog, "hdrlog", "", "also write an HdrHistogram interval log to this file")
	fs.BoolVar(&f.force, "force", false, "--hdrlog may replace an existing file dbrig did not write (never a database)")
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
	switch {
	case f.clients < 1:
		return nil, usagef("--clients %d: expected at least 1", f.clients)
	case f.batch < 1:
		return nil, usagef("--batch %d: expected at least 1", f.batch)
	case f.rate < 0:
		return nil, usagef("--rate %g: expected ops/s >= 0", f.rate)
	case f.model != "" && f.model != run.ClosedName && f.model != run.OpenName:
		return nil, usagef("--model %q: expected open or closed", f.model)
	case f.recreate && f.skipLoad:
		return nil, usagef("--recreate and --skip-load: recreating the data means loading it")
	}
	if err := workers.Local(f.wf).Check(f.set); err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	if err := f.live.check(e); err != nil {
		return nil, err
	}
	if err := pinSelf(f.cpus); err != nil {
		return nil, err
	}
	return f, nil
}

// options turns the flags into what the experiment package takes. Flags that
// stand for YCSB properties (--clients, --rate, --duration) override those
// properties, so what is stored is what ran.
func (f *runFlags) options(withRun bool, args []string) experiment.Options {
	o := experiment.Options{
		Driver: f.driver, PropFiles: f.propFiles, Props: f.props,
		Model: f.model, Arrival: f.arrival, Warmup: f.warmup, ThinkTime: f.think, OpTimeout: f.opTimeout,
		MaxBacklog: f.maxBacklog, LoadBatch: f.batch, Seed: f.seed,
		SkipLoad: f.skipLoad, Recreate: f.recreate, LoadOnly: !withRun,
		Name: f.name, Tags: f.tags, Args: args, Store: f.store, HDRLog: f.hdrlog, Force: f.force,
	}
	if !f.set["driver"] && !f.set["db"] {
		o.Driver = "" // YCSB's db= in a -P file may choose it (Pebble otherwise)
	}
	override := func(flag, key, value string) {
		o.Overrides = append(o.Overrides, experiment.Override{Flag: flag, Key: key, Value: value})
	}
	switch {
	case f.set["clients"]:
		override("--clients", "threadcount", strconv.Itoa(f.clients))
	case f.set["threads"]:
		override("-threads", "threadcount", strconv.Itoa(f.clients))
	}
	switch {
	case f.set["rate"]:
		override("--rate", "target", strconv.FormatFloat(f.rate, 'g', -1, 64))
	case f.set["target"]:
		override("-target", "target", strconv.FormatFloat(f.rate, 'g', -1, 64))
	}
	if f.set["duration"] && withRun {
		override("--duration", "maxexecutiontime", strconv.FormatFloat(f.duration.Seconds(), 'f', -1, 64))
	}
	if f.set["duration"] && !withRun {
		o.LoadDuration = f.duration
	}
	return o
}

func runCmd(ctx context.Context, e *env, args []string) error {
	f, err := parseRunFlags("run", e, args, true)
	if err != nil {
		return err
	}
	return execute(ctx, e, f, true, append([]string{"run"}, args...))
}

func loadCmd(ctx context.Context, e *env, args []string) error {
	f, err := parseRunFlags("load", e, args, false)
	if err != nil {
		return err
	}
	return execute(ctx, e, f, false, append([]string{"load"}, args...))
}

// execute resolves and performs a run and prints its summary.
func execute(ctx context.Context, e *env, f *runFlags, withRun bool, args []string) error {
	plan, err := experiment.Resolve(f.options(withRun, args))
	if err != nil {
		return err
	}
	for _, w := range plan.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	hooks := experiment.Hooks{Warn: func(err error) { fmt.Fprintf(e.stderr, "\nwarning: %v\n", err) }}
	var prog *report.ProgressLine
	if !f.quiet {
		prog = report.PlanProgress(e.stderr, plan)
		hooks.Observer = prog
		hooks.Started = func(s experiment.Started) {
			fmt.Fprintf(e.stderr, "run %d: %s on %s (%s); results in %s\n", s.RunID, plan.WorkloadName(), plan.Driver, s.Target, s.Store)
		}
	}
	live, err := f.live.start(e)
	if err != nil {
		return err
	}
	live.Begin(livemetrics.PlanRun(plan, args[0], nil))
	live.Workers(max(1, f.wf.Workers))
	out, err := workers.Execute(ctx, workers.Local(f.wf), plan, live.Hooks(hooks), e.stderr)
	prog.Close()
	live.Close()
	if out == nil {
		return err
	}
	printSummary(ctx, e, f, plan, out)
	switch out.Status {
	case experiment.StatusInterrupted:
		return errInterrupted
	case experiment.StatusFailed:
		return fmt.Errorf("run %d failed: %w", out.RunID, err)
	}
	return err
}

func printSummary(ctx context.Context, e *env, f *runFlags, plan *experiment.Plan, out *experiment.Outcome) {
	table := e.stdout
	if f.jsonOut {
		table = e.stderr
	}
	report.RunSummary(table, f.name, plan, out, f.ycsbOut)
	if !f.jsonOut {
		return
	}
	var ws *analysis.Workers
	if f.wf.Workers > 0 && out.StoreErr == nil {
		// Each worker stored its own figures; the merged outcome has none.
		var err error
		if ws, err = analysis.StoredWorkers(ctx, plan.Store, out.RunID); err != nil {
			fmt.Fprintf(e.stderr, "warning: --json without the per-worker figures: %v (see: dbrig runs show %d --json)\n", err, out.RunID)
		}
	}
	report.JSONRunWorkers(e.stdout, out.RunID, out.Status, out.Phases, out.Metrics, ws)
}

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/livemetrics"
	"github.com/dbrig/dbrig/rating"
	"github.com/dbrig/dbrig/report"
)

// benchCmd: dbrig bench FILE.yaml [--dry-run] [--set k=v]… [--json]
func benchCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig bench", e.stderr)
	var sets listFlag
	fs.Var(&sets, "set", "override a value of the file: key.path=value (e.g. load.duration=5s, clients=4); repeatable")
	dry := fs.Bool("dry-run", false, "print the resolved plan (every run) and exit")
	yes := fs.Bool("yes", false, fmt.Sprintf("allow more than %d runs", experiment.MaxRunsWithoutConfirm))
	store := fs.String("store", "", "results database: a SQLite path or postgres://… (default: per-user data path)")
	hdrlog := fs.String("hdrlog", "", "also write an HdrHistogram interval log per run (numbered after the first)")
	force := fs.Bool("force", false, "--hdrlog may replace existing files dbrig did not write (never a database)")
	jsonOut := fs.Bool("json", false, "print one JSON document with every run on stdout (tables go to stderr)")
	quiet := fs.Bool("quiet", false, "no live progress line")
	replay := fs.Int64("replay", 0, "run the exact fault plan and seed of this stored run again (FILE: default the run's own experiment file)")
	cpus := fs.String("cpus", "", cpusUsage+" (system.cluster.cpus)")
	var lf liveFlags
	lf.define(fs)
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if err := lf.check(e); err != nil {
		return err
	}
	if err := pinSelf(*cpus); err != nil {
		return err
	}
	if len(pos) != 1 && !(*replay > 0 && len(pos) == 0) {
		return usagef("dbrig bench: expected one experiment file (see examples/)")
	}
	bo := experiment.BenchOptions{Sets: sets, Store: *store, HDRLog: *hdrlog, Yes: *yes, Force: *force}
	var b *experiment.Bench
	if *replay > 0 {
		b, err = experiment.ReplayBench(ctx, strings.Join(pos, ""), *replay, bo)
	} else {
		b, err = experiment.ResolveBench(pos[0], bo)
	}
	if err != nil {
		return err
	}
	if b.Runs[0].Exp.Rate != nil && *replay == 0 {
		return benchRating(ctx, e, b, *store, *jsonOut, *quiet, *dry, lf) // ratefile.go
	}
	slas, err := rating.BenchSLAs(b)
	if err != nil {
		return err
	}
	if *dry {
		report.Plan(e.stdout, b)
		return nil
	}
	table := e.stdout
	if *jsonOut {
		table = e.stderr
	}
	var prog *report.BenchProgress
	hooks := experiment.Hooks{
		Warn:      func(err error) { fmt.Fprintf(e.stderr, "\nwarning: %v\n", err) },
		ClusterUp: func(nodes []cluster.Node) { report.StartedNodes(e.stderr, nodes) },
		OnWorkers: benchOnWorkers(e), // workers: N in the file (worker.go)
	}
	stale := rating.NewBenchStale(slas)
	hooks.WrapDB = stale.Wrap
	if !*quiet {
		prog = report.NewBenchProgress(e.stderr)
		hooks.Observer = prog
	}
	live, err := lf.start(e)
	if err != nil {
		return err
	}
	outs, runErr := b.Execute(ctx, live.Hooks(hooks), func(i int, r experiment.BenchRun) {
		stale.Next(r.Plan)
		live.Begin(livemetrics.BenchRun(b, r))
		live.Workers(max(1, r.Exp.Workers))
		fmt.Fprintf(e.stderr, "\n== %s: run %d of %d %s\n", b.Name, i+1, len(b.Runs), r.Label())
		if prog != nil {
			prog.Next(r.Plan)
		}
	})
	prog.Close()
	live.Close()
	interrupted := false
	var failedVerdicts []string
	for _, o := range outs {
		if o.Outcome == nil {
			continue
		}
		failedVerdicts = append(failedVerdicts, report.BenchRun(table, o)...)
		if s, ok := slas[o.Run.Plan]; ok && o.Outcome.Status == experiment.StatusDone {
			miss, err := judgeSLA(ctx, table, *store, o.Outcome, s, stale.Of(o.Run.Plan))
			if err != nil {
				runErr = errors.Join(runErr, err)
			} else if miss != "" {
				failedVerdicts = append(failedVerdicts, miss)
			}
		}
		report.Stored(table, o.Outcome)
		interrupted = interrupted || o.Outcome.Status == experiment.StatusInterrupted
	}
	report.BenchEnd(table, b, outs)
	if *jsonOut {
		report.BenchJSON(e.stdout, b, outs)
	}
	if interrupted {
		return errInterrupted
	}
	if runErr == nil && len(failedVerdicts) > 0 {
		return fmt.Errorf("%w: %s", errVerdict, strings.Join(failedVerdicts, "; "))
	}
	return runErr
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/rating"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/sla"
	"github.com/dbrig/dbrig/spec"
)

// An experiment file's `sla:` is checked on every run of `dbrig bench`
// (the verdict is printed and stored with the run as run metrics: sla_ok
// and one sla:TERM per term; a run that misses it makes bench exit with
// code 3, as a failed fault verdict does). Its `rate:` block makes
// `dbrig rate FILE` (and `dbrig bench FILE`) rate the experiment instead.

// fileSLA parses an experiment's SLA expressions; a mistake is reported at
// the file's line and the column inside the expression. ops, when given,
// are the workload's operation types every per-operation term must name.
func fileSLA(e spec.Experiment, ops []string, dataIntegrity bool) (sla.SLA, error) {
	var out sla.SLA
	for _, x := range e.SLA {
		s, err := sla.Parse(x.Text)
		var pe *sla.ParseError
		if errors.As(err, &pe) {
			return sla.SLA{}, &experiment.InputError{Err: &spec.FileError{Pos: x.At(pe.Column), Path: x.Path, Msg: pe.Msg}}
		}
		if err != nil {
			return sla.SLA{}, &experiment.InputError{Err: &spec.FileError{Pos: x.Pos, Path: x.Path, Msg: err.Error()}}
		}
		if s.HasUnpredictable() && dataIntegrity {
			return sla.SLA{}, &experiment.InputError{Err: &spec.FileError{Pos: x.Pos, Path: x.Path,
				Msg: "an unpredictable term stamps a version into every value written, which dataintegrity=true would report as corrupt: remove dataintegrity"}}
		}
		if ops != nil {
			if err := s.Check(ops); err != nil {
				return sla.SLA{}, &experiment.InputError{Err: &spec.FileError{Pos: x.Pos, Path: x.Path, Msg: err.Error()}}
			}
		}
		out.Terms = append(out.Terms, s.Terms...)
	}
	return out, nil
}

// benchSLAs parses the SLA of every run of a bench, before any runs.
func benchSLAs(b *experiment.Bench) (map[*experiment.Plan]sla.SLA, error) {
	out := map[*experiment.Plan]sla.SLA{}
	for _, r := range b.Runs {
		if len(r.Exp.SLA) == 0 {
			continue
		}
		s, err := fileSLA(r.Exp, r.Plan.Workload.Ops(), dataIntegrity(r.Plan))
		if err != nil {
			return nil, err
		}
		out[r.Plan] = s
	}
	return out, nil
}

// slaMetrics are an SLA's verdict as a run's metrics: sla_ok first, then
// the measured value of each term.
func slaMetrics(res sla.Result) []results.RunMetric {
	ok := 0.0
	if res.Pass {
		ok = 1
	}
	ms := []results.RunMetric{{Name: "sla_ok", Value: ok, Doc: "1: the run met the experiment file's SLA, 0: it missed it"}}
	for _, t := range res.Terms {
		v, unit := t.Measured, t.Unit
		if unit == "%" {
			v, unit = v*100, "%"
		}
		verdict := "pass"
		if !t.Pass {
			verdict = "FAIL"
		}
		ms = append(ms, results.RunMetric{Name: "sla:" + t.Term, Value: v, Unit: unit,
			Doc: fmt.Sprintf("SLA term %s (limit %s): %s", t.Term, sla.FormatValue(t.Limit, t.Unit), verdict)})
	}
	return ms
}

// judgeSLA evaluates a finished run against its SLA, prints the verdict and
// stores it with the run. It returns the failure ("" when met).
func judgeSLA(ctx context.Context, w io.Writer, storeDSN string, out *experiment.Outcome, s sla.SLA, stale *experiment.StaleReads) (string, error) {
	sum, ok := out.Measured()
	if !ok {
		sum = measure.Summary{}
	}
	var metrics []results.RunMetric
	reads := sla.Reads{}
	if stale != nil {
		r := stale.Result()
		reads = sla.Reads{Counted: true, Total: r.Reads, Unpredictable: r.Unpredictable}
		metrics = r.Metrics()
	}
	res := s.EvaluateReads(sum, reads)
	var terms []string
	for _, t := range res.Terms {
		terms = append(terms, t.String())
	}
	verdict := "met"
	if !res.Pass {
		verdict = "MISSED"
	}
	fmt.Fprintf(w, "  SLA %s: %s — %s\n", s, verdict, strings.Join(terms, ", "))
	store, err := results.Open(context.WithoutCancel(ctx), storeDSN)
	if err != nil {
		return "", err
	}
	defer store.Close()
	if err := store.AddRunMetrics(context.WithoutCancel(ctx), out.RunID, append(slaMetrics(res), metrics...)); err != nil {
		return "", err
	}
	if res.Pass {
		return "", nil
	}
	return fmt.Sprintf("run %d missed its SLA: %s", out.RunID, res.Failed()), nil
}

// rateOwnFlags may be given with `dbrig rate FILE`: they win over the
// file's rate block. Every other run flag belongs in the file (or --set).
var rateOwnFlags = map[string]bool{"sla": true, "sla-duration": true, "by": true, "precision": true, "reset": true,
	"max": true, "no-early-stop": true, "probe": true, "votes": true, "min-tail": true, "settle": true, "steadiness": true, "store": true, "json": true, "quiet": true, "set": true, "dry-run": true, "yes": true}

// fileRating builds a rating from an experiment file (resolved as a bench
// of exactly one run) and its rate block, with rate's flags winning.
func fileRating(b *experiment.Bench, rf *rateFlags, set map[string]bool) (rating.Options, error) {
	var o rating.Options
	bad := func(err error) (rating.Options, error) { return o, &experiment.InputError{Err: err} }
	if len(b.Runs) != 1 {
		e := b.Runs[0].Exp
		path := "repeat"
		if len(e.Matrix) > 0 {
			path = e.Matrix[0].Key // the value the matrix put there: its position in the matrix
		}
		return bad(e.Errorf(path, "a rating rates one experiment, and this file makes %d runs: remove the matrix and repeat (or pick a combination with --set)", len(b.Runs)))
	}
	r := b.Runs[0]
	e, plan := r.Exp, r.Plan
	blk := e.Rate
	if blk == nil {
		blk = &spec.Rate{EarlyStop: true, Probe: true, Set: map[string]bool{}}
	}
	from := func(flag, key string) bool { return set[flag] || !blk.Set[key] }
	switch {
	case len(e.SLA) == 0 && !set["sla"]:
		return bad(e.Errorf("rate", `a rating needs an SLA: add sla: ["p95<100ms"] to the file (or give --sla)`))
	case len(e.Scenario) > 0:
		return bad(e.Errorf("scenario", "a rating measures the store without faults: remove the scenario"))
	case len(e.Load.Schedule) > 0:
		return bad(e.Errorf("load.schedule", "a rating chooses the rate itself: remove the schedule"))
	}
	o.By = blk.By
	if from("by", "by") {
		o.By = rf.by
	}
	if o.By == "" {
		o.By = rating.ByRate
	}
	if _, ok := e.Position("load.rate"); ok && o.By == rating.ByClients {
		return bad(e.Errorf("load.rate", "by clients searches the number of clients (closed model): remove load.rate"))
	}
	if o.By == rating.ByClients && e.Load.Model == run.OpenName {
		return bad(e.Errorf("load.model", "by clients rates the closed model: remove model: open"))
	}
	if o.By == rating.ByRate && e.Load.Model == run.ClosedName {
		return bad(e.Errorf("load.model", "by rate rates the open model (a target rate): remove model: closed, or rate by clients"))
	}
	o.Reset = blk.Reset
	if from("reset", "reset") {
		o.Reset = rf.reset
	}
	known := false
	for _, s := range rating.Strategies {
		known = known || s == o.Reset
	}
	if !known {
		if set["reset"] {
			return bad(fmt.Errorf("--reset %q: expected one of %s", o.Reset, strings.Join(rating.Strategies, ", ")))
		}
		return bad(e.Errorf("rate.reset", "%q: expected one of %s", o.Reset, strings.Join(rating.Strategies, ", ")))
	}
	prec := rf.precision
	if !from("precision", "precision") {
		prec = blk.Precision
	}
	p, err := parsePrecision(prec)
	if err != nil {
		if set["precision"] {
			return o, err
		}
		return bad(e.Errorf("rate.precision", "%q: expected a percentage such as 5%% (more than 0%%, at most 50%%)", prec))
	}
	o.Precision = p
	if set["sla"] {
		s, err := sla.Parse(rf.sla...)
		if err != nil {
			return bad(err)
		}
		o.SLA = s
	} else if o.SLA, err = fileSLA(e, plan.Workload.Ops(), dataIntegrity(plan)); err != nil {
		return o, err
	}
	switch {
	case set["sla-duration"]:
		o.SLADuration = rf.slaDuration
	case blk.Set["sla_duration"]:
		o.SLADuration = blk.SLADuration
	case e.Load.Duration > 0:
		o.SLADuration = e.Load.Duration
	default:
		o.SLADuration = rf.slaDuration // the flag's default
	}
	o.Step = o.SLADuration / 4
	if o.Step < 2*time.Second {
		o.Step = min(2*time.Second, o.SLADuration)
	}
	if blk.Set["step"] {
		o.Step = blk.Step
	}
	o.Max = blk.Max
	if set["max"] {
		o.Max = rf.max
	}
	o.Start = blk.Start
	if !blk.Set["start"] {
		if _, ok := e.Position("load.rate"); ok && o.By == rating.ByRate {
			o.Start = e.Load.Rate
		}
		if _, ok := e.Position("load.clients"); ok && o.By == rating.ByClients {
			o.Start = float64(e.Load.Clients)
		}
	}
	o.NoEarlyStop = !blk.EarlyStop || rf.noEarly
	o.NoProbe = !blk.Probe
	if set["probe"] {
		o.NoProbe = !rf.probe
	}
	if asked := set["probe"] || blk.Set["probe"]; asked && !o.NoProbe && (o.By == rating.ByClients || o.Start > 0) {
		why := "by clients starts at load.clients (1 without it)"
		if o.By == rating.ByRate {
			why = "the file gives the start (rate.start or load.rate)"
		}
		if set["probe"] {
			return bad(fmt.Errorf("--probe measures the capacity a search by rate starts from, and %s: remove one", why))
		}
		return bad(e.Errorf("rate.probe", "the probe measures the capacity a search by rate starts from, and %s: remove one", why))
	}
	o.Votes, o.MinTail, o.NoSettle, o.Steadiness = rf.votes, rf.minTail, !rf.settle, rf.steadiness
	if blk.Set["votes"] && !set["votes"] {
		o.Votes = blk.Votes
	}
	if blk.Set["min_tail"] && !set["min-tail"] {
		o.MinTail = blk.MinTail
	}
	if o.MinTail == 0 {
		o.MinTail = -1
	}
	if blk.Set["settle"] && !set["settle"] {
		o.NoSettle = !blk.Settle
	}
	if blk.Set["warmup"] { // the rating's warmup, over load.warmup
		o.Warmup = blk.Warmup
		if o.Warmup == 0 {
			o.Warmup = -1
		}
	}
	o.Base = plan.Options
	o.Base.Name = b.Name
	o.Base.Command = "dbrig rate " + b.File
	o.Base.Args = nil
	return o, nil
}

// rateFileCmd: dbrig rate FILE [--set k=v]… [rate flags].
func rateFileCmd(ctx context.Context, e *env, path string, rf *rateFlags, f *runFlags, sets []string, dry bool) error {
	for name := range f.set {
		if !rateOwnFlags[name] {
			return usagef("dbrig rate %s: --%s belongs in the experiment file (or --set key.path=value)", path, name)
		}
	}
	b, err := experiment.ResolveBench(path, experiment.BenchOptions{Sets: sets, Store: f.store})
	if err != nil {
		return err
	}
	return rateBench(ctx, e, b, rf, f, dry)
}

// rateBench rates the one experiment of a resolved bench.
func rateBench(ctx context.Context, e *env, b *experiment.Bench, rf *rateFlags, f *runFlags, dry bool) error {
	opts, err := fileRating(b, rf, f.set)
	if err != nil {
		return err
	}
	if dry {
		printPlan(e.stdout, b)
		fmt.Fprintf(e.stdout, "\nrating: SLA %s, by %s, reset %s, precision %g%%, experiments of %v, final run of %v, start %s, max %g, early stop %v, votes %d, min tail %d, warmup %v, settle %v\n",
			opts.SLA, opts.By, opts.Reset, opts.Precision*100, opts.Step, opts.SLADuration, dryStart(opts), opts.Max, !opts.NoEarlyStop,
			opts.Votes, max(0, opts.MinTail), dryWarmup(opts.Warmup), !opts.NoSettle)
		return nil
	}
	return runRating(ctx, e, f, opts)
}

// benchRating: dbrig bench FILE on a file with a rate block rates it, with
// the rate command's defaults for what the block leaves out.
func benchRating(ctx context.Context, e *env, b *experiment.Bench, store string, jsonOut, quiet, dry bool) error {
	rf := &rateFlags{by: rating.ByRate, precision: "5%", reset: rating.ResetReload, slaDuration: 60 * time.Second,
		votes: rating.DefaultVotes, minTail: rating.DefaultMinTail, settle: true, probe: true}
	f := &runFlags{store: store, jsonOut: jsonOut, quiet: quiet, set: map[string]bool{}}
	return rateBench(ctx, e, b, rf, f, dry)
}

// benchStale counts stale reads for the runs of a bench whose SLA has an
// unpredictable term: one experiment.StaleReads per run, installed through
// Hooks.WrapDB (which Execute calls once per run, after the bench's
// beforeRun callback named the run).
type benchStale struct {
	slas   map[*experiment.Plan]sla.SLA
	cur    *experiment.Plan
	checks map[*experiment.Plan]*experiment.StaleReads
}

func newBenchStale(slas map[*experiment.Plan]sla.SLA) *benchStale {
	return &benchStale{slas: slas, checks: map[*experiment.Plan]*experiment.StaleReads{}}
}

// wrap is a Hooks.WrapDB.
func (b *benchStale) wrap(db driver.DB) driver.DB {
	if !b.slas[b.cur].HasUnpredictable() {
		return db
	}
	s := experiment.NewStaleReads()
	b.checks[b.cur] = s
	return s.Wrap(db)
}

func dataIntegrity(p *experiment.Plan) bool {
	di, _ := p.Props.Bool("dataintegrity", false)
	return di
}

// dryWarmup says the warmup a dry run will use ("default" when the rating
// picks it: 1 s, at most half an experiment).
func dryWarmup(w time.Duration) string {
	switch {
	case w < 0:
		return "none"
	case w == 0:
		return "default"
	}
	return w.String()
}

// dryStart says where the search will start.
func dryStart(o rating.Options) string {
	switch {
	case o.Start > 0:
		return strconv.FormatFloat(o.Start, 'g', -1, 64)
	case o.By == rating.ByClients:
		return "1"
	case o.NoProbe:
		return strconv.FormatFloat(rating.DefaultStartRate, 'g', -1, 64)
	}
	return "half the capacity probed"
}

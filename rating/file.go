package rating

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/sla"
	"github.com/dbrig/dbrig/spec"
)

// The rules of an experiment file's `sla:` and `rate:` blocks. Its `sla:`
// is checked on every run of `dbrig bench` (the verdict is printed and
// stored with the run as run metrics: sla_ok and one sla:TERM per term; a
// run that misses it makes bench exit with code 3, as a failed fault
// verdict does). Its `rate:` block makes `dbrig rate FILE` (and
// `dbrig bench FILE`) rate the experiment instead.

// Flags are the rate command's own settings as given; Set names the
// command's flags given explicitly (they win over the file's rate block).
type Flags struct {
	SLA         []string
	SLADuration time.Duration
	By          string
	Precision   string
	Reset       string
	Max         float64
	NoEarlyStop bool
	Probe       bool
	Votes       int
	MinTail     int
	Settle      bool
	Steadiness  time.Duration // 0: the machine's steadiness is not measured
	Budget      time.Duration // 0: none
	Reference   bool          // the reference probe before and after (reference.go)
	Set         map[string]bool
}

// FileDefaults are the rate command's defaults, for `dbrig bench FILE` on
// a file with a rate block: what the block leaves out.
func FileDefaults() Flags {
	return Flags{By: ByRate, Precision: "5%", Reset: ResetReload, SLADuration: 60 * time.Second,
		Votes: DefaultVotes, MinTail: DefaultMinTail, Settle: true, Probe: true, Reference: true, Set: map[string]bool{}}
}

// FileSLA parses an experiment's SLA expressions; a mistake is reported at
// the file's line and the column inside the expression. ops, when given,
// are the workload's operation types every per-operation term must name.
func FileSLA(e spec.Experiment, ops []string, dataIntegrity bool) (sla.SLA, error) {
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

// BenchSLAs parses the SLA of every run of a bench, before any runs.
func BenchSLAs(b *experiment.Bench) (map[*experiment.Plan]sla.SLA, error) {
	out := map[*experiment.Plan]sla.SLA{}
	for _, r := range b.Runs {
		if len(r.Exp.SLA) == 0 {
			continue
		}
		s, err := FileSLA(r.Exp, r.Plan.Workload.Ops(), dataIntegrity(r.Plan))
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

// Verdict is a finished run's SLA verdict and the run metrics that store
// it (sla_ok, one sla:TERM per term, and the stale-read counts).
type Verdict struct {
	Result  sla.Result
	Metrics []results.RunMetric
}

// Judge evaluates a finished run against its SLA; stale, when not nil,
// counted the run's stale reads.
func Judge(out *experiment.Outcome, s sla.SLA, stale *experiment.StaleReads) Verdict {
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
	return Verdict{Result: res, Metrics: append(slaMetrics(res), metrics...)}
}

// Store stores the verdict with run id in the results store storeDSN.
func (v Verdict) Store(ctx context.Context, storeDSN string, id int64) error {
	store, err := results.Open(context.WithoutCancel(ctx), storeDSN)
	if err != nil {
		return err
	}
	defer store.Close()
	return store.AddRunMetrics(context.WithoutCancel(ctx), id, v.Metrics)
}

// FromFile builds a rating from an experiment file (resolved as a bench
// of exactly one run) and its rate block, with the rate command's flags
// winning where they were given (rf.Set).
func FromFile(b *experiment.Bench, rf Flags) (Options, error) {
	var o Options
	set := rf.Set
	bad := func(err error) (Options, error) { return o, &experiment.InputError{Err: err} }
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
		o.By = rf.By
	}
	if o.By == "" {
		o.By = ByRate
	}
	if _, ok := e.Position("load.rate"); ok && o.By == ByClients {
		return bad(e.Errorf("load.rate", "by clients searches the number of clients (closed model): remove load.rate"))
	}
	if o.By == ByClients && e.Load.Model == run.OpenName {
		return bad(e.Errorf("load.model", "by clients rates the closed model: remove model: open"))
	}
	if o.By == ByRate && e.Load.Model == run.ClosedName {
		return bad(e.Errorf("load.model", "by rate rates the open model (a target rate): remove model: closed, or rate by clients"))
	}
	o.Reset = blk.Reset
	if from("reset", "reset") {
		o.Reset = rf.Reset
	}
	known := false
	for _, s := range Strategies {
		known = known || s == o.Reset
	}
	if !known {
		if set["reset"] {
			return bad(fmt.Errorf("--reset %q: expected one of %s", o.Reset, strings.Join(Strategies, ", ")))
		}
		return bad(e.Errorf("rate.reset", "%q: expected one of %s", o.Reset, strings.Join(Strategies, ", ")))
	}
	if err := plannedSnapshot(o.Reset, plan); err != nil {
		if set["reset"] {
			return bad(fmt.Errorf("--reset %s: %w", o.Reset, err))
		}
		return bad(e.Errorf("rate.reset", "%s: %v", o.Reset, err))
	}
	prec := rf.Precision
	if !from("precision", "precision") {
		prec = blk.Precision
	}
	p, err := ParsePrecision(prec)
	if err != nil {
		if set["precision"] {
			return bad(err)
		}
		return bad(e.Errorf("rate.precision", "%q: expected a percentage such as 5%% (more than 0%%, at most 50%%)", prec))
	}
	o.Precision = p
	if set["sla"] {
		s, err := sla.Parse(rf.SLA...)
		if err != nil {
			return bad(err)
		}
		o.SLA = s
	} else if o.SLA, err = FileSLA(e, plan.Workload.Ops(), dataIntegrity(plan)); err != nil {
		return o, err
	}
	switch {
	case set["sla-duration"]:
		o.SLADuration = rf.SLADuration
	case blk.Set["sla_duration"]:
		o.SLADuration = blk.SLADuration
	case e.Load.Duration > 0:
		o.SLADuration = e.Load.Duration
	default:
		o.SLADuration = rf.SLADuration // the flag's default
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
		o.Max = rf.Max
	}
	o.Start = blk.Start
	if !blk.Set["start"] {
		if _, ok := e.Position("load.rate"); ok && o.By == ByRate {
			o.Start = e.Load.Rate
		}
		if _, ok := e.Position("load.clients"); ok && o.By == ByClients {
			o.Start = float64(e.Load.Clients)
		}
	}
	o.NoEarlyStop = !blk.EarlyStop || rf.NoEarlyStop
	o.NoProbe = !blk.Probe
	if set["probe"] {
		o.NoProbe = !rf.Probe
	}
	if asked := set["probe"] || blk.Set["probe"]; asked && !o.NoProbe && (o.By == ByClients || o.Start > 0) {
		why := "by clients starts at load.clients (1 without it)"
		if o.By == ByRate {
			why = "the file gives the start (rate.start or load.rate)"
		}
		if set["probe"] {
			return bad(fmt.Errorf("--probe measures the capacity a search by rate starts from, and %s: remove one", why))
		}
		return bad(e.Errorf("rate.probe", "the probe measures the capacity a search by rate starts from, and %s: remove one", why))
	}
	fileRules(&o, blk, rf)
	o.Base = plan.Options
	o.Base.Name = b.Name
	o.Base.Command = "dbrig rate " + b.File
	o.Base.Args = nil
	return o, nil
}

// fileRules sets the decision rules, the settle, the reference probe and
// the budget from the rate command's flags, and from the file's rate block
// where the flag was not given (rf.Set).
func fileRules(o *Options, blk *spec.Rate, rf Flags) {
	set := rf.Set
	o.Votes, o.MinTail, o.NoSettle, o.Steadiness = rf.Votes, rf.MinTail, !rf.Settle, rf.Steadiness
	o.Budget, o.Reference = rf.Budget, rf.Reference
	if blk.Set["budget"] && !set["budget"] {
		o.Budget = blk.Budget
	}
	if blk.Set["reference"] && !set["reference"] {
		o.Reference = blk.Reference
	}
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
}

// BenchStale counts stale reads for the runs of a bench whose SLA has an
// unpredictable term: one experiment.StaleReads per run, installed through
// Hooks.WrapDB (which Execute calls once per run, after the bench's
// beforeRun callback named the run: Next).
type BenchStale struct {
	slas   map[*experiment.Plan]sla.SLA
	cur    *experiment.Plan
	checks map[*experiment.Plan]*experiment.StaleReads
}

// NewBenchStale counts stale reads for the runs whose SLA (slas) needs it.
func NewBenchStale(slas map[*experiment.Plan]sla.SLA) *BenchStale {
	return &BenchStale{slas: slas, checks: map[*experiment.Plan]*experiment.StaleReads{}}
}

// Next names the run the next Wrap is for.
func (b *BenchStale) Next(p *experiment.Plan) { b.cur = p }

// Of is the stale-read count of run p (nil: not counted).
func (b *BenchStale) Of(p *experiment.Plan) *experiment.StaleReads { return b.checks[p] }

// Wrap is a Hooks.WrapDB.
func (b *BenchStale) Wrap(db driver.DB) driver.DB {
	if !b.slas[b.cur].HasUnpredictable() {
		return db
	}
	s := experiment.NewStaleReads()
	b.checks[b.cur] = s
	return s.Wrap(db)
}

// Describe says what a rating with these options will run (dbrig rate
// --dry-run).
func (o Options) Describe() string {
	s := fmt.Sprintf("SLA %s, by %s, reset %s, precision %g%%, experiments of %v, final run of %v, start %s, max %g, early stop %v, votes %d, min tail %d, warmup %v, settle %v, reference probe %v",
		o.SLA, o.By, o.Reset, o.Precision*100, o.Step, o.SLADuration, dryStart(o), o.Max, !o.NoEarlyStop,
		o.Votes, max(0, o.MinTail), dryWarmup(o.Warmup), !o.NoSettle, o.Reference)
	if o.Budget > 0 {
		s += fmt.Sprintf(", budget %v", o.Budget)
	}
	return s
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
func dryStart(o Options) string {
	switch {
	case o.Start > 0:
		return strconv.FormatFloat(o.Start, 'g', -1, 64)
	case o.By == ByClients:
		return "1"
	case o.NoProbe:
		return strconv.FormatFloat(DefaultStartRate, 'g', -1, 64)
	}
	return "half the capacity probed"
}

// FromFlags builds a rating from the rate command's flags alone (no
// experiment file): rf; where the search starts (start; 0: not given);
// each experiment's length when given (step; else a quarter of the SLA's,
// at least 2 s); whether --warmup 0 turned the warmup off. The caller sets
// Base.
func FromFlags(rf Flags, start float64, step time.Duration, stepGiven, noWarmup bool) (Options, error) {
	var o Options
	bad := func(format string, args ...any) (Options, error) {
		return o, &experiment.InputError{Err: fmt.Errorf(format, args...)}
	}
	if len(rf.SLA) == 0 {
		return bad("dbrig rate: expected an SLA, e.g. --sla 'p95<100ms' (repeatable)")
	}
	s, err := sla.Parse(rf.SLA...)
	if err != nil {
		return o, &experiment.InputError{Err: err}
	}
	prec, err := ParsePrecision(rf.Precision)
	if err != nil {
		return o, &experiment.InputError{Err: err}
	}
	if rf.Votes < 1 || rf.Votes%2 == 0 {
		return bad("--votes %d: expected an odd number of runs (1: every first verdict is final, 3: a failure must repeat)", rf.Votes)
	}
	if rf.MinTail < 0 {
		return bad("--min-tail %d: expected a number of operations, 0 for no minimum", rf.MinTail)
	}
	o = Options{SLA: s, By: rf.By, Precision: prec, SLADuration: rf.SLADuration, Max: rf.Max, Reset: rf.Reset, NoEarlyStop: rf.NoEarlyStop,
		NoProbe: !rf.Probe, Votes: rf.Votes, MinTail: rf.MinTail, NoSettle: !rf.Settle, Steadiness: rf.Steadiness, Start: start, Step: step,
		Budget: rf.Budget, Reference: rf.Reference}
	if rf.MinTail == 0 {
		o.MinTail = -1
	}
	// Every experiment warms up (default: 1 s, at most half of it) so that
	// connections opened by its fresh driver are not in the SLA's sample;
	// --warmup 0 turns that off.
	if noWarmup {
		o.Warmup = -1
	}
	if !stepGiven {
		o.Step = rf.SLADuration / 4
		if o.Step < 2*time.Second {
			o.Step = min(2*time.Second, rf.SLADuration)
		}
	}
	return o, nil
}

// ParsePrecision reads a rating's precision: "5%" or "0.05", more than 0
// and at most 50%.
func ParsePrecision(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
	if err != nil {
		return 0, fmt.Errorf("--precision %q: expected a percentage such as 5%% (or a fraction such as 0.05)", s)
	}
	if pct {
		v /= 100
	}
	if !(v > 0 && v <= 0.5) {
		return 0, fmt.Errorf("--precision %q: expected more than 0%% and at most 50%%", s)
	}
	return v, nil
}

func dataIntegrity(p *experiment.Plan) bool {
	di, _ := p.Props.Bool("dataintegrity", false)
	return di
}

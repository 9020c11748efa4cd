// Package rating rates a data store against an SLA: it finds the highest
// target rate (open model) or number of clients (closed model) at which the
// store still meets the SLA. The search grows the target geometrically
// (by rate, from half the capacity a closed-model probe measured first)
// until the SLA breaks, bisects to a stated precision, never repeats an
// experiment with the same parameters, and confirms the answer with a run
// of the SLA's full duration. Every experiment is a normal stored run
// (experiment.Resolve and Execute), tagged with the rating; an experiment
// whose outcome is certain is stopped early. Between experiments the data
// set is reset by a strategy (reload, snapshot, keep) whose cost is
// measured: the rating-time model Λ = ζ + ω·ν + η·δ + Δ.
package rating

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/machine"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/sla"
)

// What a rating searches.
const (
	ByRate    = "rate"    // target ops/s, open model
	ByClients = "clients" // clients, closed model
)

// Dataset reset strategies.
const (
	ResetReload   = "reload"   // drop and load again before each experiment
	ResetSnapshot = "snapshot" // restore an image taken after the first load
	ResetKeep     = "keep"     // reuse the data set as it is
	ResetRepair   = "repair"   // undo exactly what the last experiment wrote (repair.go)
)

// Strategies lists the reset strategies dbrig implements.
var Strategies = []string{ResetReload, ResetSnapshot, ResetKeep, ResetRepair}

// Defaults.
const (
	DefaultPrecision = 0.05
	DefaultStartRate = 100.0
	// DefaultPool is the open model's client pool when the user gives none:
	// large enough that dbrig's own clients are not what saturates.
	DefaultPool = 32
	// DefaultWarmup is each experiment's warmup (at most half of it).
	DefaultWarmup = time.Second
	// DefaultMinTail is how many operations beyond the strictest
	// percentile an experiment needs: 200 operations for p95, 1,000 for p99.
	DefaultMinTail = 10
	// DefaultVotes: a failure is confirmed by a majority of up to 3 runs.
	DefaultVotes = 3
	// SteadinessWindow is the window of the machine steadiness measurement
	// (Options.Steadiness).
	SteadinessWindow = 250 * time.Millisecond
	// maxStretch bounds how much longer than asked an experiment is made
	// for its sample (MinTail).
	maxStretch = 10
)

// Options is what a rating is asked to do.
type Options struct {
	// Base is the experiment as `dbrig run` takes it. Its target rate or
	// clients, if given, are where the search starts.
	Base      experiment.Options
	SLA       sla.SLA
	By        string        // ByRate (default) or ByClients
	Precision float64       // relative; 0: DefaultPrecision
	Step      time.Duration // δ: each search experiment's length; 0: SLADuration
	// SLADuration is Δ, how long the SLA must hold: the final run's length.
	SLADuration time.Duration
	// Start is the first target; 0: the base's rate or clients, else (by
	// rate) half the capacity the probe measures (probe.go), 100 ops/s
	// with NoProbe, or 1 client.
	Start       float64
	Max         float64 // highest target to try; 0: no bound
	Reset       string  // a strategy; "": reload
	NoEarlyStop bool
	// NoProbe: by rate without a Start, the search starts at
	// DefaultStartRate instead of half the capacity a closed-model probe
	// measures first (probe.go).
	NoProbe bool
	// Warmup runs before each experiment's measured window and is not
	// evaluated: every experiment opens the driver afresh, and its
	// connections (PostgreSQL: 32 backends forked at once, 0.3–0.5 s on a
	// 2-core machine) and prepared statements are set up there, not in the
	// SLA's sample. 0: DefaultWarmup, at most half an experiment; negative:
	// none.
	Warmup time.Duration
	// MinTail: by rate, an experiment lasts long enough (up to maxStretch
	// times its length) for this many operations beyond the SLA's strictest
	// percentile (sla.MinSample). 0: DefaultMinTail; negative: no minimum.
	MinTail int
	// Votes: a target that fails is run again until a majority of up to
	// Votes runs agrees; a pass is taken at once. 0: DefaultVotes; 1: every
	// first verdict is final.
	Votes int
	// NoSettle skips the settle step: after the first load and after each
	// reset, a driver.Settler waits for the store's background work
	// (settle.go).
	NoSettle bool
	// Steadiness: measure for this long, once the input is checked and
	// before the load, how steady this machine's speed is
	// (machine.MeasureSteadiness); 0: not measured.
	Steadiness time.Duration
	// Reference runs the reference probe (reference.go) before the first
	// and after the last experiment: whether the capacity the rating saw
	// moved.
	Reference bool
	// MachineLoad measures, before each experiment, the share of this
	// machine other processes keep busy (machine.go): a failure while they
	// held it bounds what the store does on it unloaded only loosely, and
	// the interval says so.
	MachineLoad bool
	// Budget caps the rating's total time (0: none): the search stops with
	// the best bracket found once its next experiment and the final run
	// would not fit (budget.go).
	Budget time.Duration

	probe bool // set by check: the search starts from a capacity probe
	// perform, set by tests, performs each experiment's phases instead of
	// the runner and the driver: a queue model in virtual time
	// (qsim_test.go), so the search is tested in seconds and under load.
	perform func(*experiment.Plan) experiment.Performer
	// clock, set by tests, is the rating's clock (nil: time.Now): the queue
	// model's virtual time, so budgets and estimates are tested exactly.
	clock func() time.Time
	// condition, set by tests, measures the store's condition after each
	// reset instead of a driver.Conditioner.
	condition func() driver.Condition
	// others, set by tests, is the share of the machine other processes
	// kept busy before each experiment, and its cores (MachineLoad),
	// instead of measuring it; cpu, set by tests, reads the CPU counters
	// instead of /proc.
	others func() (float64, int)
	cpu    cpuReader
}

// Hooks let a caller watch a rating. Every field is optional.
type Hooks struct {
	Started func(ratingID int64, store string)
	// Experiment is called before each experiment (with its kind and
	// target; a probe's target is its clients), Step after it.
	Experiment func(kind string, target float64)
	Step       func(Step)
	Warn       func(error)
	// Planned is called once before the first experiment with the budget
	// and the up-front estimate; Progress after each step: time spent, an
	// estimate of the time left, the budget.
	Planned  func(Budget)
	Progress func(Progress)
	// Observer sees every interval and event of every experiment.
	Observer run.Observer
}

// Step is one experiment of a rating.
type Step struct {
	Kind         string           `json:"kind"` // "probe" (probe.go), "search" or "final"
	Target       float64          `json:"target"`
	Achieved     float64          `json:"achieved"` // ops/s measured
	Terms        []sla.TermResult `json:"terms"`
	Pass         bool             `json:"pass"`
	StoppedEarly bool             `json:"stopped_early"`
	Inconclusive bool             `json:"inconclusive,omitempty"` // failed while dbrig itself was late or the store had drifted: repeated
	// Why says why the step is inconclusive ("" if it is not).
	Why string `json:"inconclusive_why,omitempty"`
	// Verdict is pass, fail or inconclusive ("" for the probes, which have
	// none).
	Verdict       string  `json:"verdict,omitempty"`
	Reason        string  `json:"reason,omitempty"`
	RunID         int64   `json:"run_id"`
	Reset         string  `json:"reset"`                   // how the data set was prepared: load, reload, snapshot, keep
	Fallback      string  `json:"fallback,omitempty"`      // keep, repair: why this step could not keep or repair the data
	Keys          int64   `json:"keys_restored,omitempty"` // repair, snapshot of the written keys: how many were put back
	Unpredictable int64   `json:"unpredictable,omitempty"` // stale reads seen (with an unpredictable term)
	ResetS        float64 `json:"reset_s"`                 // its cost (the first load's is first_load_s)
	Seconds       float64 `json:"seconds"`                 // warmup + measure time spent
	Length        float64 `json:"length_s"`                // the measured window asked for (stretched for the sample)
	Ops           int64   `json:"ops"`                     // operations measured
	Vote          int     `json:"vote,omitempty"`          // 2, 3: a repeat of a failed target (Votes)
	SettleS       float64 `json:"settle_s,omitempty"`      // of reset_s (first_load_s): waiting for the store to settle
	// Condition is the store's condition before the step, as measured after
	// its settle (condition.go); Drift how far it lay from the reference.
	Condition driver.Condition `json:"condition,omitempty"`
	Drift     *Drift           `json:"drift,omitempty"`
	// Others is the share of the machine's cores other processes kept busy
	// just before the step (machine.go); nil: not measured.
	Others *float64 `json:"others_share,omitempty"`
}

// Times is the rating-time split, measured: Λ = ζ + ω·ν + η·δ + Δ.
type Times struct {
	FirstLoadS   float64 `json:"first_load_s"`  // ζ
	ResetCount   int     `json:"reset_count"`   // ω
	ResetsS      float64 `json:"resets_s"`      // ω·ν
	Experiments  int     `json:"experiments"`   // η
	ExperimentsS float64 `json:"experiments_s"` // η·δ
	FinalS       float64 `json:"final_s"`       // Δ
	TotalS       float64 `json:"total_s"`       // Λ, wall time
	EarlySavedS  float64 `json:"early_saved_s"` // experiment time early stopping saved
	// SettleS is the part of ζ and ω·ν spent settling the store after the
	// load and the resets (settle.go).
	SettleS float64 `json:"settle_s"`
	// ClusterS is how long the experiment file's local cluster took to
	// start (once per rating); outside Λ's terms, inside total_s.
	ClusterS float64 `json:"cluster_s,omitempty"`
	// ResetCeiling is Λ / (Λ − ω·ν): how many times faster this rating
	// would have been had its resets cost nothing (0: no resets). Of a
	// reload rating it is the most any reset strategy can gain with the
	// same experiments: what a faster reset can still buy.
	ResetCeiling float64 `json:"reset_ceiling,omitempty"`
}

// Rating is a finished (or failed) rating.
type Rating struct {
	ID        int64   `json:"-"`
	By        string  `json:"-"`
	SLA       string  `json:"sla"`
	Strategy  string  `json:"strategy"`
	Precision float64 `json:"precision"`
	Answer    float64 `json:"-"` // ops/s or clients; 0 with Found false
	Found     bool    `json:"-"`
	Confirmed bool    `json:"confirmed"` // the final run at Answer met the SLA
	AtMax     bool    `json:"at_max"`    // the SLA still held at the search's upper bound
	Steps     []Step  `json:"steps"`
	Time      Times   `json:"time"`
	// Left says how the data set was put back as loaded at the end (so a
	// next rating can run on it with --skip-load); "" if it was not.
	Left string `json:"left,omitempty"`
	// Rule is the decision rule the rating applied (warmup, sample, votes).
	Rule string `json:"rule"`
	// Spread is the band where runs contradicted each other (nil: none);
	// Stable says it is no wider than the precision (spread.go).
	Spread *Spread `json:"spread,omitempty"`
	Stable bool    `json:"stable"`
	// Machine is how steady this machine's speed was before the rating
	// (nil: not measured, Options.Steadiness 0).
	Machine *machine.Steadiness `json:"machine,omitempty"`
	// Load is how busy other processes kept the machine before the
	// experiments (machine.go); nil: not measured.
	Load *MachineLoad `json:"machine_load,omitempty"`
	// Condition is the store's condition: its reference and drift
	// (condition.go); nil when the store cannot measure it.
	Condition *ConditionSummary `json:"condition,omitempty"`
	// Reference is the reference probe's capacity before and after
	// (reference.go); nil when not run.
	Reference *Reference `json:"reference,omitempty"`
	// Final is the pass point the final runs put the answer at (final.go);
	// nil: they did not both pass and fail.
	Final *analysis.PassPoint `json:"final,omitempty"`
	// Interval is what the runs support (interval.go); nil: no answer.
	Interval *Interval `json:"interval,omitempty"`
	// Budget is the budget, the up-front estimate and whether the budget
	// ended the rating (budget.go).
	Budget *Budget `json:"budget,omitempty"`
}

// MarshalJSON writes the answer as "throughput" (by rate) or "clients".
func (r Rating) MarshalJSON() ([]byte, error) {
	type plain Rating
	out := struct {
		RatingID   int64    `json:"rating_id"`
		Throughput *float64 `json:"throughput,omitempty"`
		Clients    *float64 `json:"clients,omitempty"`
		plain
	}{RatingID: r.ID, plain: plain(r)}
	if r.Found {
		a := r.Answer
		if r.By == ByClients {
			out.Clients = &a
		} else {
			out.Throughput = &a
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // p95<50ms, not p95\u003c50ms
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// unissued finds an SLA term about an operation the workload does not
// issue (READ.p99 with readproportion=0): it could never pass.
func unissued(s sla.SLA, sum measure.Summary) error {
	if sum.Overall.Count == 0 {
		return nil
	}
	for _, t := range s.Terms {
		if t.Op == "" {
			continue
		}
		n := int64(0)
		for _, o := range sum.Ops {
			if strings.EqualFold(o.Op, t.Op) {
				n = o.Count
			}
		}
		if n == 0 {
			return fmt.Errorf("SLA term %s: the workload issued no %s operations (%d others): check its %sproportion", t.Text, t.Op, sum.Overall.Count, strings.ReplaceAll(strings.ToLower(t.Op), "-", ""))
		}
	}
	return nil
}

// stepOptions is the base with one experiment's target and length.
func (o *Options) stepOptions(target float64, dur time.Duration, name string, tags []string) experiment.Options {
	e := o.timed(dur, name, tags)
	if o.By == ByClients {
		e.Model = run.ClosedName
		e.Overrides = append(e.Overrides, experiment.Override{Flag: "rate", Key: "threadcount", Value: strconv.Itoa(int(target))})
	} else {
		e.Model = run.OpenName
		e.Overrides = append(e.Overrides, experiment.Override{Flag: "rate", Key: "target", Value: strconv.FormatFloat(target, 'f', -1, 64)})
	}
	return e
}

// timed is the base as every experiment of the rating runs it: for dur
// (not a number of operations), named, tagged, with the rating's warmup.
func (o *Options) timed(dur time.Duration, name string, tags []string) experiment.Options {
	e := o.Base
	e.Overrides = append(append([]experiment.Override(nil), e.Overrides...),
		experiment.Override{Flag: "rate", Key: "operationcount", Value: "0"},
		experiment.Override{Flag: "rate", Key: "maxexecutiontime", Value: strconv.FormatFloat(dur.Seconds(), 'f', -1, 64)})
	e.Tags = append(append([]string(nil), e.Tags...), tags...)
	e.Name = name
	e.Warmup = max(0, o.Warmup)
	e.HDRLog = "" // one file cannot hold several runs
	return e
}

// check rejects what cannot be rated, before anything runs.
func (o *Options) check() error {
	if o.By == "" {
		o.By = ByRate
	}
	if o.Reset == "" {
		o.Reset = ResetReload
	}
	if o.Precision == 0 {
		o.Precision = DefaultPrecision
	}
	switch {
	case o.By != ByRate && o.By != ByClients:
		return fmt.Errorf("--by %q: expected rate (highest throughput, open model) or clients (most clients, closed model)", o.By)
	case len(o.SLA.Terms) == 0:
		return fmt.Errorf("no SLA: give one with --sla, e.g. --sla p95<100ms")
	case o.SLADuration <= 0:
		return fmt.Errorf("--sla-duration %v: expected how long the SLA must hold, e.g. 60s", o.SLADuration)
	case !(o.Precision > 0 && o.Precision <= 0.5):
		return fmt.Errorf("--precision %g%%: expected more than 0%% and at most 50%%", o.Precision*100)
	case o.Step < 0:
		return fmt.Errorf("experiment length %v: expected a positive duration", o.Step)
	case len(o.Base.Schedule) > 0:
		return fmt.Errorf("a rate schedule: a rating chooses the rate itself; remove the schedule")
	case o.Max < 0 || o.Start < 0:
		return fmt.Errorf("search range %g … %g: expected positive targets", o.Start, o.Max)
	case o.Budget < 0:
		return fmt.Errorf("--budget %v: expected a positive duration (0: no budget)", o.Budget)
	case o.Steadiness < 0 || o.Steadiness > 0 && o.Steadiness < 4*SteadinessWindow:
		return fmt.Errorf("--steadiness %v: expected 0 (skip) or at least %v", o.Steadiness, 4*SteadinessWindow)
	}
	if o.Step == 0 || o.Step > o.SLADuration {
		o.Step = o.SLADuration
	}
	if o.Warmup == 0 && o.Base.Warmup > 0 {
		o.Warmup = o.Base.Warmup
	}
	if o.Warmup == 0 {
		o.Warmup = min(DefaultWarmup, o.Step/2)
	}
	if o.MinTail == 0 {
		o.MinTail = DefaultMinTail
	}
	if o.Votes == 0 {
		o.Votes = DefaultVotes
	}
	if o.Votes < 0 || o.Votes%2 == 0 {
		return fmt.Errorf("votes %d: expected an odd number of runs (1: no repeats, 3: a failure must repeat)", o.Votes)
	}
	known := false
	for _, s := range Strategies {
		known = known || s == o.Reset
	}
	if !known {
		return fmt.Errorf("--reset %q: expected one of %v", o.Reset, Strategies)
	}
	if o.By == ByClients {
		if o.Base.Model == run.OpenName {
			return fmt.Errorf("--by clients rates the closed model: remove --model open")
		}
		if o.Start != math.Trunc(o.Start) || o.Max != math.Trunc(o.Max) {
			return fmt.Errorf("--by clients: the search range %g … %g must be whole numbers of clients", o.Start, o.Max)
		}
	} else if o.Base.Model == run.ClosedName {
		return fmt.Errorf("--by rate rates the open model (a target rate): remove --model closed, or use --by clients")
	}
	if o.By == ByRate && o.Max > run.MaxRate {
		return fmt.Errorf("search range up to %g ops/s: one dbrig process paces at most %g ops/s", o.Max, float64(run.MaxRate))
	}
	if o.By == ByRate && o.Max == 0 {
		o.Max = run.MaxRate // no bound given: what one process can pace
	}
	o.probe = o.By == ByRate && o.Start == 0 && !o.NoProbe
	if o.Start == 0 {
		o.Start = DefaultStartRate
		if o.By == ByClients {
			o.Start = 1
		}
	}
	if o.Max > 0 && o.Max < o.Start {
		return fmt.Errorf("search range %s … %s cannot contain an answer: the upper bound is below the start", format.Target(o.By, o.Start), format.Target(o.By, o.Max))
	}
	if o.By == ByClients && o.Max > 0 && o.Max < 1 {
		return fmt.Errorf("search range up to %g clients cannot contain an answer: at least one client runs", o.Max)
	}
	return nil
}

// now is the rating's clock: the tests' virtual one, else the wall clock.
func (o *Options) now() time.Time {
	if o.clock != nil {
		return o.clock()
	}
	return time.Now()
}

func (r *rater) now() time.Time { return r.opts.now() }

// input marks bad input for experiment.IsInput (exit code 2).
func input(err error) error { return &experiment.InputError{Err: err} }

// StoppedError is the cause an experiment's context is cancelled with when
// its outcome became certain.
type StoppedError struct{ Reason string }

func (e *StoppedError) Error() string { return "stopped early: " + e.Reason }

// EarlyStop marks the run stopped, not interrupted (experiment.EarlyStop).
func (*StoppedError) EarlyStop() {}

// Rate performs a rating. Bad input (an SLA the workload cannot be measured
// against, a strategy the system cannot do, a search range without an
// answer) is an experiment.InputError, returned before anything is loaded.
// A non-nil Rating is stored (with what was found so far) even with an
// error.
func Rate(ctx context.Context, opts Options, h Hooks) (*Rating, error) {
	began := opts.now()
	if err := opts.check(); err != nil {
		return nil, input(err)
	}
	if least := opts.minimum(); opts.Budget > 0 && opts.Budget < least {
		return nil, input(fmt.Errorf("--budget %v: a rating with these settings needs at least %v (its probe, one experiment, the least final runs and the reference probes, with their warmups): give more, or shorter experiments", opts.Budget, least))
	}
	if h.Warn == nil {
		h.Warn = func(error) {}
	}
	// The first experiment's plan checks every input of the base.
	first, err := experiment.Resolve(opts.stepOptions(opts.Start, opts.Step, "", nil))
	if err != nil {
		return nil, err
	}
	if err := opts.SLA.Check(first.Workload.Ops()); err != nil {
		return nil, input(err)
	}
	if di, _ := first.Props.Bool("dataintegrity", false); di && opts.SLA.HasUnpredictable() {
		return nil, input(fmt.Errorf("SLA term unpredictable: dbrig stamps a version into every value it writes, which -p dataintegrity=true would report as corrupt; remove dataintegrity (and use --reset snapshot, keep or reload)"))
	}
	// What makes two ratings of this system agree (driver.Driver's
	// RatingProps), unless the user chose otherwise.
	for _, kv := range first.Registry[first.Driver].RatingProps {
		k, v, _ := strings.Cut(kv, "=")
		if !first.Props.Has(k) {
			opts.Base.Overrides = append(opts.Base.Overrides, experiment.Override{Flag: "rate (a rating's default for " + first.Driver + ")", Key: k, Value: v})
		}
	}
	if opts.By == ByRate {
		if _, _, ok := first.Props.Lookup("threadcount"); !ok {
			opts.Base.Overrides = append(opts.Base.Overrides, experiment.Override{Flag: "rate", Key: "threadcount", Value: strconv.Itoa(DefaultPool)})
		}
	}
	var standing *experiment.Standing
	var clusterS float64
	table := tableOf(first)
	if err := plannedSnapshot(opts.Reset, first); err != nil {
		return nil, input(fmt.Errorf("--reset %s: %w", opts.Reset, err))
	}
	if opts.Base.Cluster != nil {
		// One cluster for every experiment, so that the data set outlives
		// each: stood up once the input is checked, torn down at the end.
		took := time.Now()
		s, base, err := experiment.StandUp(ctx, opts.Base, experiment.Hooks{Warn: h.Warn})
		if err != nil {
			return nil, err
		}
		defer func() {
			if err := s.Down(context.WithoutCancel(ctx)); err != nil {
				h.Warn(fmt.Errorf("tear down the %s cluster: %w", s.System(), err))
			}
		}()
		opts.Base, clusterS, standing = base, time.Since(took).Seconds(), s
		if first, err = experiment.Resolve(opts.stepOptions(opts.Start, opts.Step, "", nil)); err != nil {
			return nil, err
		}
	}
	r := &rater{opts: opts, hooks: h, table: table, driverName: first.Driver, registry: first.Registry, standing: standing, began: began}
	if opts.MinTail > 0 {
		r.minOps = opts.SLA.MinSample(opts.MinTail, func(op string) float64 {
			f, _ := first.Props.Float(strings.ReplaceAll(strings.ToLower(op), "-", "")+"proportion", 0)
			return f
		})
	}
	if err := r.checkStrategy(ctx, first); err != nil {
		return nil, err
	}
	var steady *machine.Steadiness
	if opts.Steadiness > 0 {
		// Once the input is known good, before the load: the machine as
		// idle as it gets.
		m, err := machine.MeasureSteadiness(ctx, opts.Steadiness, SteadinessWindow)
		if err != nil {
			return nil, err
		}
		steady = &m
	}
	if opts.Reference && table != "" {
		if r.datasetKey, err = datasetKey(&opts); err != nil {
			return nil, err
		}
	}
	store, err := results.Open(ctx, opts.Base.Store)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	r.store = store
	res := &Rating{By: opts.By, SLA: opts.SLA.String(), Strategy: opts.Reset, Precision: opts.Precision, Machine: steady,
		Budget: &Budget{BudgetS: opts.Budget.Seconds()}}
	res.Budget.EstimateExperiments, res.Budget.EstimateS = opts.estimate()
	res.Time.ClusterS = clusterS
	id, err := store.CreateRating(ctx, results.Rating{Name: opts.Base.Name, Start: began, System: first.Driver,
		Workload: first.WorkloadName(), SLA: res.SLA, By: opts.By, Strategy: opts.Reset, Precision: opts.Precision,
		StepS: opts.Step.Seconds(), SLADurationS: opts.SLADuration.Seconds(), BudgetS: opts.Budget.Seconds(), EstimateS: res.Budget.EstimateS,
		DatasetKey: r.datasetKey})
	if err != nil {
		return nil, err
	}
	res.ID, r.id, r.res = id, id, res
	res.Rule = r.rule()
	if h.Started != nil {
		h.Started(id, store.Name())
	}
	defer r.dropSnapshot(context.WithoutCancel(ctx))
	if h.Planned != nil {
		h.Planned(*res.Budget)
	}

	runErr := r.search(ctx)
	var pre *experiment.PreloadedError
	if errors.As(runErr, &pre) {
		runErr = fmt.Errorf("%w (a rating with --reset snapshot or repair leaves the data set as it loaded it, so a next rating on the same data takes --skip-load; after reload or keep the data is as the last experiment left it: use --recreate)", runErr)
	}
	if res.Answer <= 0 {
		res.Found = false // interrupted before a final run decided
	}
	res.Time.TotalS = r.elapsed().Seconds()
	res.Time.ResetCeiling = results.ResetCeiling(res.Time.TotalS, res.Time.ResetsS)
	res.Spread = spread(res.Steps)
	res.Stable = res.Found && !res.Spread.wider(opts.Precision)
	res.Interval = r.interval()
	// Not part of Λ: the data set as loaded again, for the next rating.
	if runErr == nil {
		if did, err := r.leaveLoaded(ctx); err != nil {
			h.Warn(fmt.Errorf("the data set is left as the last experiment wrote it: %w", err))
		} else {
			res.Left = did
		}
	}
	status, msg := results.StatusDone, r.message()
	switch {
	case runErr != nil && ctx.Err() != nil:
		status, msg = experiment.StatusInterrupted, "interrupted"
	case runErr != nil:
		var na *NoAnswerError
		if !errors.As(runErr, &na) {
			status = experiment.StatusFailed
		}
		msg = runErr.Error()
	}
	fin := stored(res, status, msg)
	if err := store.FinishRating(context.WithoutCancel(ctx), fin); err != nil {
		runErr = errors.Join(runErr, err)
	}
	return res, runErr
}

// stored is a finished rating as the results store keeps it.
func stored(res *Rating, status, msg string) results.Rating {
	fin := results.Rating{ID: res.ID, Status: status, Message: msg, Confirmed: res.Confirmed,
		FirstLoadS: res.Time.FirstLoadS, ResetCount: int64(res.Time.ResetCount), ResetsS: res.Time.ResetsS,
		Experiments: int64(res.Time.Experiments), ExperimentsS: res.Time.ExperimentsS, FinalS: res.Time.FinalS,
		TotalS: res.Time.TotalS, EarlySavedS: res.Time.EarlySavedS}
	if res.Found {
		a := res.Answer
		fin.Answer = &a
	}
	if sp := res.Spread; sp != nil {
		fin.SpreadLow, fin.SpreadHigh = &sp.Low, &sp.High
	}
	if m := res.Machine; m != nil {
		cv := m.Cache.CV
		fin.MachineCV = &cv
	}
	if ref := res.Reference; ref != nil {
		fin.ReferenceBefore = &ref.Before
		if ref.After > 0 {
			fin.ReferenceAfter = &ref.After
		}
		if ref.PreviousRating != 0 {
			fin.ReferencePreviousID, fin.ReferencePrevious = ref.PreviousRating, &ref.Previous
		}
	}
	if iv := res.Interval; iv != nil {
		fin.IntervalLow, fin.IntervalHigh, fin.IntervalUnbounded = &iv.Low, &iv.High, iv.Unbounded
	}
	if l := res.Load; l != nil {
		fin.OthersMean, fin.OthersMax, fin.Cores = &l.Mean, &l.Max, l.Cores
	}
	if f := res.Final; f != nil {
		fin.Final = &results.RatingFinal{Mid: f.Mid, Low: f.Low, High: f.High, Scale: f.Scale, Runs: f.Runs, Passes: f.Passes}
	}
	fin.BudgetStopped = res.Budget.Stopped
	return fin
}

// rule says how each verdict was reached.
func (r *rater) rule() string {
	var parts []string
	if r.opts.Warmup > 0 {
		parts = append(parts, fmt.Sprintf("each experiment warms up %v first (not evaluated)", r.opts.Warmup))
	}
	if r.minOps > 0 {
		parts = append(parts, fmt.Sprintf("lasts until %d operations (%d beyond the SLA's percentile; at most %d× its length)", r.minOps, r.opts.MinTail, maxStretch))
	}
	if r.settles() {
		parts = append(parts, "starts after the store settled from the load or reset (its background work done; in the reset's time)")
	}
	if r.opts.Votes > 1 {
		parts = append(parts, fmt.Sprintf("a search failure counts only when a majority of up to %d runs fails; a pass counts at once while the search grows, and needs that majority too once a target has failed (bisecting)", r.opts.Votes))
	} else {
		parts = append(parts, "every search verdict is one run's")
	}
	parts = append(parts, fmt.Sprintf("the final runs last the SLA's duration, one step of %g%% up after a pass and down after a failure (larger while the outcome repeats), %d to %d of them until the likelihood band (nominally 95%%) of the target they pass as often as they fail is within half the precision; the answer is that target", r.opts.Precision/2*100, minFinals, maxFinals))
	return strings.Join(parts, "; ")
}

// message says what the answer means.
func (r *rater) message() string {
	var parts []string
	switch {
	case !r.res.Found:
		parts = append(parts, "no answer")
		if b := r.res.Budget.describe(r.opts.By, r.opts.Precision); b != "" {
			parts = append(parts, b)
		}
		return strings.Join(parts, "; ")
	case r.res.AtMax:
		parts = append(parts, "the SLA still held at the search's upper bound: the answer is at least that")
	case !r.res.Confirmed:
		parts = append(parts, "no final run (of the SLA's duration) passed: the answer is not confirmed")
	}
	if p := r.res.Final; p != nil && analysis.SpreadWider(p.Relative, r.opts.Precision) && !r.res.Budget.Band {
		parts = append(parts, fmt.Sprintf("the %d final runs place the target they pass as often as they fail between %s and %s (their likelihood band, nominally 95%%), %.0f%% apart, wider than the precision of %g%%: near it a run's outcome is a coin toss; the interval holds that band",
			p.Runs, format.Target(r.opts.By, p.Low), format.Target(r.opts.By, p.High), p.Relative*100, r.opts.Precision*100))
	}
	if r.res.Spread.wider(r.opts.Precision) {
		parts = append(parts, r.res.Spread.describe(r.opts.By, r.opts.Precision))
	}
	if m := r.res.Machine; m != nil && m.Cache.CV > r.opts.Precision {
		parts = append(parts, fmt.Sprintf("this machine's speed was not steady before the rating: cache-bound work varied by %.0f%% (coefficient of variation) from one %v window to the next, register-only work by %.0f%%; a store's capacity moves with it, so two ratings here may differ by more than the precision, and the interval is widened by it (×%.2f either way)",
			m.Cache.CV*100, SteadinessWindow, m.ALU.CV*100, 1+m.Cache.CV))
	}
	for _, p := range []string{r.res.Budget.describe(r.opts.By, r.opts.Precision), r.res.Reference.describe(r.opts.Precision), r.res.Condition.describe(), r.res.Load.describe()} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "; ")
}

// rater holds one rating's state.
type rater struct {
	opts       Options
	hooks      Hooks
	store      *results.Store
	id         int64
	res        *Rating
	table      string
	driverName string
	datasetKey string // the data set's key (dataset.go), "" without the reference probe
	registry   driver.Registry
	ephemeral  bool // the data lives only as long as one experiment's driver
	first      *experiment.Plan
	loaded     bool // the first experiment loaded the data
	snapshot   bool // a snapshot was taken
	// standing is the experiment file's cluster, stood up for the whole
	// rating (nil: the system runs elsewhere or is embedded); image: the
	// snapshot is its nodes' data directories (cluster/image.go), for a
	// driver without a snapshot of its own.
	standing *experiment.Standing
	image    bool
	// keep: the capability for the fallback, the base's record count, the
	// acknowledged inserts carried over, and why the next step may not keep.
	canSnapshot bool
	keyRestore  bool // the driver restores single keys of an image (driver.KeyRestorer)
	settler     bool // the driver settles after a load or reset (driver.Settler)
	conditioner bool // the driver measures the store's condition (driver.Conditioner)
	began       time.Time
	srch        *searcher // the search under way (nil before it and after it)
	// inFinal, finalDone: the final runs started, ended; referenceDone: the
	// reference probe after them ran.
	inFinal, finalDone, referenceDone bool
	minOps                            int64            // operations an experiment needs for the SLA's percentile (length)
	late                              int              // runs of the current verdict repeated because dbrig was late
	bisecting                         bool             // a search target has failed: a pass needs a majority too
	finals                            []analysis.Trial // the final runs so far (final.go)
	finalStep                         float64          // their staircase's relative step
	log                               *keyLog          // the keys the last experiment wrote (repair, snapshot of keys)
	deletes                           bool
	records                           int64
	inserted                          int64
	dirty                             string
	seq                               int
	noLoad                            bool // the machine's load cannot be read here
}

// search runs the reference probe, the search, the final confirmation and
// the reference probe again; a budget that runs out stops the search with
// the bracket it has, and the final run confirms its highest pass.
func (r *rater) search(ctx context.Context) error {
	reference := r.opts.Reference && r.table != ""
	if reference {
		if err := r.referenceProbe(ctx); err != nil {
			return err
		}
	}
	if err := r.searchAndConfirm(ctx); err != nil {
		return err
	}
	r.finalDone = true
	if reference && r.affords(KindReference, referenceLength) {
		return r.referenceProbe(ctx)
	}
	if reference {
		r.hooks.Warn(fmt.Errorf("the budget leaves no time for the reference probe after the last experiment: whether the capacity moved is not known"))
	}
	return nil
}

// searchAndConfirm runs the search, then the final confirmation.
func (r *rater) searchAndConfirm(ctx context.Context) error {
	start, capacity := r.opts.Start, 0.0
	if r.opts.probe {
		var err error
		if start, capacity, err = r.probeStart(ctx); err != nil {
			return err
		}
	}
	s := newSearcher(r.opts.By, start, r.opts.Max, r.opts.Precision)
	s.capacity = capacity
	r.srch = s
	answer, err := s.run(ctx, func(ctx context.Context, target float64) (bool, error) {
		st, err := r.verdict(ctx, "search", target, r.opts.Step)
		return st.Pass, err
	})
	if errors.Is(err, errBudget) {
		r.budgetStopped(s.lo, s.hi)
		if s.lo == 0 {
			return nil // no answer: nothing passed
		}
		answer, err = s.lo, nil
	}
	if err != nil {
		return err
	}
	r.res.AtMax = s.atMax
	r.inFinal = true
	return r.confirm(ctx, s, answer)
}

// verdict decides a search target. While the search grows, a pass is
// taken at once (cheap, and far below the answer a pass is no luck). Once
// a target has failed, the search bisects near the boundary, where one
// lucky run decided ratings (two back to back: a pass at 2,750 ops/s after
// mixed verdicts at 2,500 and 3,000, then three failed final runs): there
// a pass too needs a majority of up to Votes runs. A failure always needs
// one; early stopping makes a repeated failure cheap. The step returned
// carries the majority's verdict. (The final runs do not vote: each is
// one trial of the pass point they estimate together, final.go.)
func (r *rater) verdict(ctx context.Context, kind string, target float64, dur time.Duration) (Step, error) {
	return r.judge(kind, func(vote int) (Step, error) { return r.experiment(ctx, kind, target, dur, vote) })
}

// judge applies the rule of verdict to the runs of one target.
func (r *rater) judge(kind string, run func(vote int) (Step, error)) (Step, error) {
	st, err := decide(r.opts.Votes, kind == "search" && r.bisecting, run)
	if err == nil && !st.Pass && kind == "search" {
		r.bisecting = true
	}
	return st, err
}

// decide runs votes (1, 2, …) until the verdict is known: the first run's
// pass (unless both), or a majority of up to votes runs.
func decide(votes int, both bool, run func(vote int) (Step, error)) (Step, error) {
	need := votes/2 + 1
	fails, passes := 0, 0
	for vote := 1; ; vote++ {
		st, err := run(vote)
		if err != nil {
			return st, err
		}
		if st.Pass {
			passes++
		} else {
			fails++
		}
		if (st.Pass && vote == 1 && !both) || passes >= need {
			st.Pass = true
			return st, nil
		}
		if fails >= need {
			return st, nil
		}
	}
}

// length is how long an experiment at target measures (stretch).
func (r *rater) length(target float64, dur time.Duration) time.Duration {
	if r.opts.By != ByRate {
		return dur
	}
	return stretch(r.minOps, target, dur)
}

// stretch lengthens dur until an open-model experiment at target issues
// minOps operations (rounded up to 0.1 s), at most maxStretch times dur.
func stretch(minOps int64, target float64, dur time.Duration) time.Duration {
	if minOps <= 0 || target <= 0 {
		return dur
	}
	need := time.Duration(math.Ceil(float64(minOps)/target*10)) * 100 * time.Millisecond
	if need <= dur {
		return dur
	}
	return min(need, maxStretch*dur)
}

// lateRetries is how often the runs of one verdict are repeated when dbrig's own
// load generator, not the store, was late.
const lateRetries = 2

// experiment runs one stored experiment at target and evaluates the SLA. A
// failure while the load generator itself was late (a stall of dbrig on a
// busy machine: dispatch lag, which excludes waiting for the store) says
// nothing about the store, so it is recorded as inconclusive and repeated.
func (r *rater) experiment(ctx context.Context, kind string, target float64, dur time.Duration, vote int) (Step, error) {
	dur = r.length(target, dur)
	if vote == 1 {
		r.late = 0 // the budget is the verdict's, not each vote's
	}
	for {
		if !r.affords(kind, dur) {
			return Step{}, errBudget
		}
		st, err := r.attempt(ctx, kind, target, dur, r.late < lateRetries, vote)
		if err != nil || !st.Inconclusive {
			return st, err
		}
		r.late++
	}
}

// generatorLate says whether the dispatch lag alone takes half of the
// tightest latency limit at p95 ("" if not).
func (r *rater) generatorLate(sum measure.Summary) string {
	limit := time.Duration(0)
	for _, t := range r.opts.SLA.Terms {
		if t.Metric == sla.Latency && (limit == 0 || t.LatencyLimit() < limit) {
			limit = t.LatencyLimit()
		}
	}
	lag := time.Duration(sum.Lag.P95) * time.Microsecond
	if limit == 0 || lag < limit/2 {
		return ""
	}
	return fmt.Sprintf("dbrig's load generator was late (dispatch lag p95 %v, half the limit is %v)", lag, limit/2)
}

// attempt runs the experiment once; retry says whether a failure caused by
// the load generator may be repeated (the step is then Inconclusive).
func (r *rater) attempt(ctx context.Context, kind string, target float64, dur time.Duration, retry bool, vote int) (Step, error) {
	st := Step{Kind: kind, Target: target, Length: dur.Seconds()}
	if vote > 1 {
		st.Vote = vote
	}
	name := fmt.Sprintf("rating %d %s %s", r.id, kind, format.Target(r.opts.By, target))
	tags := []string{"rating:" + strconv.FormatInt(r.id, 10)}
	eo := r.opts.stepOptions(target, dur, name, tags)
	probe := kind == KindProbe || kind == KindReference // no verdict
	switch kind {
	case KindProbe:
		eo = r.opts.probeOptions(dur, fmt.Sprintf("rating %d capacity probe", r.id), tags)
	case KindReference:
		eo = r.opts.referenceOptions(dur, fmt.Sprintf("rating %d reference probe", r.id), tags)
	}
	if r.standing != nil {
		eo.Attached = r.standing.Nodes() // new PIDs after an image restore
	}
	prepStart := r.now()
	if err := r.prepare(ctx, &eo, &st); err != nil {
		return st, err
	}
	if err := r.machineLoad(ctx, &st); err != nil {
		return st, err
	}
	plan, err := experiment.Resolve(eo)
	if err != nil {
		return st, err
	}
	if probe {
		st.Target = float64(plan.Config.Clients)
	}
	if r.hooks.Experiment != nil {
		r.hooks.Experiment(kind, st.Target) // the probes: their clients
	}
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The probe has no verdict to stop for: it runs its length.
	stop := newStopper(r.opts.SLA, r.opts.By, target, dur, r.opts.NoEarlyStop || probe, cancel, r.hooks.Observer)
	hooks := experiment.Hooks{Observer: stop, Warn: r.hooks.Warn, WrapDB: r.wrapFor(&st), Store: r.store}
	if r.opts.perform != nil {
		hooks.Perform = r.opts.perform(plan)
	}
	var stale *experiment.StaleReads
	if r.opts.SLA.HasUnpredictable() {
		// Version stamps on every write, checked on every read (the
		// unpredictable term).
		stale = experiment.NewStaleReads()
		inner := hooks.WrapDB
		hooks.WrapDB = func(db driver.DB) driver.DB {
			if inner != nil {
				db = inner(db)
			}
			return stale.Wrap(db)
		}
	}
	out, runErr := experiment.Execute(sctx, plan, hooks)
	if out == nil {
		return st, runErr
	}
	st.RunID = out.RunID
	if st.SettleS > 0 {
		if err := r.store.AddRunMetrics(context.WithoutCancel(ctx), out.RunID, settleMetric(st)); err != nil {
			r.hooks.Warn(err)
		}
	}
	stopped := stop.reason() != "" && ctx.Err() == nil
	// A mostly failed experiment is measured all the same: its verdict says it failed.
	if runErr != nil && !stopped && !errors.As(runErr, new(*measure.FailedError)) {
		return st, fmt.Errorf("%s experiment at %s (run %d): %w", kind, format.Target(r.opts.By, target), out.RunID, runErr)
	}
	sum, _ := out.Measured()
	if err := unissued(r.opts.SLA, sum); err != nil && !stopped {
		return st, input(err)
	}
	st.Seconds = runSeconds(out.Phases)
	st.Achieved = sum.Overall.Throughput
	st.Ops = sum.Overall.Count
	reads := sla.Reads{}
	if stale != nil {
		sr := stale.Result()
		reads = sla.Reads{Counted: true, Total: sr.Reads, Unpredictable: sr.Unpredictable}
		st.Unpredictable = sr.Unpredictable
		if err := r.store.AddRunMetrics(context.WithoutCancel(ctx), out.RunID, sr.Metrics()); err != nil {
			r.hooks.Warn(err)
		}
	}
	ev := r.opts.SLA.EvaluateReads(sum, reads)
	st.Terms, st.Pass = ev.Terms, ev.Pass
	switch {
	case kind == KindReference:
		st.Pass, st.Reason = false, referenceReason(plan.Config.Clients, st.Achieved)
	case probe:
		// Its terms are shown (latency at saturation), but it has no
		// verdict: not a pass, and not a failure of any target.
		st.Pass, st.Reason = false, probeReason(plan.Config.Clients, st.Achieved)
	case r.opts.By == ByRate:
		t := r.throughputTerm(target, dur, sum.Overall.Count, out.Phases)
		st.Terms = append(st.Terms, t)
		st.Pass = st.Pass && t.Pass
	}
	if !st.Pass && !probe {
		st.Reason = sla.Result{Terms: st.Terms}.Failed()
	}
	if r.minOps > 0 && float64(sum.Overall.Count) < 0.9*float64(r.minOps) && !stopped && !probe { // a few short of the stretch's count is the run's own tail
		st.Reason = strings.TrimSuffix(fmt.Sprintf("small sample: %d operations, the SLA's percentile needs %d; %s", sum.Overall.Count, r.minOps, st.Reason), "; ")
	}
	if stopped {
		st.StoppedEarly, st.Pass, st.Reason = true, false, stop.reason()
		r.res.Time.EarlySavedS += math.Max(0, dur.Seconds()-measureSeconds(out.Phases))
	}
	r.classify(&st, sum, retry && !probe)
	// Where the time went: the experiment itself, and everything around it
	// (opening, loading or restoring, storing) as the data set's cost.
	r.afterKeep(out.Phases, st.Unpredictable)
	overhead := math.Max(0, r.now().Sub(prepStart).Seconds()-st.Seconds)
	if st.Reset == resetLoad {
		r.res.Time.FirstLoadS += overhead
		if r.wantsSnapshot() && !r.snapshot { // with an unpredictable term, the load was inside the experiment
			took := time.Now()
			if err := r.takeSnapshot(ctx); err != nil {
				return st, err
			}
			r.res.Time.FirstLoadS += time.Since(took).Seconds()
		}
	} else {
		st.ResetS = overhead
		r.res.Time.ResetCount++
		r.res.Time.ResetsS += overhead
	}
	if kind == "final" {
		r.res.Time.FinalS += st.Seconds
	} else {
		r.res.Time.Experiments++
		r.res.Time.ExperimentsS += st.Seconds
	}
	r.res.Steps = append(r.res.Steps, st)
	r.res.Condition.note(st.Drift)
	if err := r.store.AddRatingStep(context.WithoutCancel(ctx), r.id, r.seq, storedStep(r.opts.Reset, st)); err != nil {
		r.hooks.Warn(err)
	}
	r.seq++
	if kind == "final" && !st.Inconclusive {
		r.finals = append(r.finals, analysis.Trial{Target: target, Pass: st.Pass})
	}
	if r.hooks.Step != nil {
		r.hooks.Step(st)
	}
	r.progress()
	return st, nil
}

// throughputTerm: the open model's answer is a throughput, so the store
// must also complete the operations asked for, within the precision.
// Counted over the experiment's planned length, not the phase's, which
// also holds the tail of the last in-flight operations (100 ms of tail is
// 5 % of a 2 s experiment); operations still queued for a client when the
// phase ends are dropped and count against it.
func (r *rater) throughputTerm(target float64, dur time.Duration, count int64, phases []measure.Summary) sla.TermResult {
	secs := math.Min(dur.Seconds(), measureSeconds(phases))
	done := 0.0
	if secs > 0 {
		done = float64(count) / secs
	}
	want := target * (1 - r.opts.Precision)
	return sla.TermResult{Term: fmt.Sprintf("throughput>=%.4g%% of target", 100*(1-r.opts.Precision)), Measured: done, Limit: want, Unit: "ops/s", Pass: done >= want}
}

// runSeconds is the time the warmup and measure phases took.
func runSeconds(sums []measure.Summary) float64 {
	s := 0.0
	for _, p := range sums {
		if p.Phase == measure.PhaseWarmup || p.Phase == measure.PhaseMeasure {
			s += p.End.Sub(p.Start).Seconds()
		}
	}
	return s
}

func measureSeconds(sums []measure.Summary) float64 {
	if m, ok := measure.Measured(sums); ok {
		return m.End.Sub(m.Start).Seconds()
	}
	return 0
}

func storedStep(strategy string, st Step) results.RatingStep {
	out := results.RatingStep{Kind: st.Kind, Target: st.Target, Achieved: st.Achieved, Pass: st.Pass, StoppedEarly: st.StoppedEarly,
		Reason: st.Reason, RunID: st.RunID, Reset: st.Reset, ResetS: st.ResetS, Seconds: st.Seconds,
		Verdict: st.Verdict, InconclusiveWhy: st.Why}
	for _, f := range st.Condition {
		out.Condition = append(out.Condition, results.ConditionFigure{Name: f.Name, Value: f.Value, Unit: f.Unit})
	}
	if d := st.Drift; d != nil {
		out.Drift, out.DriftFigure = &d.Change, d.Figure
	}
	out.Others = st.Others
	if st.Vote > 0 {
		out.Reason = strings.TrimSuffix(fmt.Sprintf("vote %d: the target failed before; %s", st.Vote, out.Reason), "; ")
	}
	if st.Fallback != "" {
		out.Reset = strategy + "→" + st.Reset
		out.Reason = strings.TrimSuffix(strategy+" fell back: "+st.Fallback+"; "+st.Reason, "; ")
	}
	for _, t := range st.Terms {
		out.Terms = append(out.Terms, results.RatingTerm{Term: t.Term, Measured: t.Measured, Limit: t.Limit, Unit: t.Unit, Pass: t.Pass})
	}
	return out
}

// openDriver opens the system under test outside an experiment (to check a
// capability, take or restore a snapshot).
func (r *rater) openDriver(ctx context.Context, p *experiment.Plan) (driver.DB, func(), error) {
	dir, err := os.MkdirTemp("", "dbrig-rate-")
	if err != nil {
		return nil, nil, err
	}
	db, err := r.registry.Open(ctx, r.driverName, driver.Config{Props: p.Props, Dir: dir})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("open %s: %w", r.driverName, err)
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }, nil
}

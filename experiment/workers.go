package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload/timeseries"
	"github.com/dbrig/dbrig/workload/tpcc"
)

// This file is the experiment side of distributed runs (package workers):
// a Plan split into Shares for N worker processes, and a worker opening and
// running its Share. The coordinator stores the one merged run through
// Execute with Hooks.Perform; the workers store nothing.

// Share is one worker's part of a run, as the coordinator sends it: every
// property as resolved (secrets included: the worker connects to the
// system; the protocol's token guards who receives it), the options that
// are not properties, and the share's own values.
type Share struct {
	Index, Workers int
	Driver         string
	Props          map[string]string // the run's properties, unredacted, with the share's overrides applied
	LoadProps      map[string]string // overrides for the load phase only: insertstart, insertcount
	Model          string
	Arrival        string
	Schedule       []run.RateStep
	Warmup         time.Duration
	ThinkTime      time.Duration
	OpTimeout      time.Duration
	MaxBacklog     int
	LoadBatch      int
	LoadDuration   time.Duration
	Seed           int64
	SkipLoad       bool
	LoadOnly       bool
}

// ShareError is a run that cannot be split into the shares asked for (more
// workers than records, clients or operations; a rate share below 1 op/s):
// bad input.
type ShareError struct {
	Workers int
	What    string // what there is too little of, with its amount
}

func (e *ShareError) Error() string {
	return fmt.Sprintf("--workers %d: %s, so some workers would get an empty share; use fewer workers", e.Workers, e.What)
}

// WorkersUnsupported returns why a plan cannot run on workers (nil: it
// can): a local cluster, faults and verify need the one process that
// stands the cluster up or tracks every write.
func (p *Plan) WorkersUnsupported() error {
	switch {
	case p.Cluster != nil:
		return &InputError{Err: fmt.Errorf("workers: a local cluster (system:) is not supported with workers yet; start it with dbrig cluster up and point the driver at it")}
	case len(p.Faults) > 0:
		return &InputError{Err: fmt.Errorf("workers: a fault scenario is not supported with workers yet")}
	case p.Verify:
		return &InputError{Err: fmt.Errorf("workers: verify is not supported with workers yet")}
	case tpcc.Is(p.Props):
		return &InputError{Err: fmt.Errorf("workers: TPC-C is not supported with workers yet (its loader and warehouses are not split into shares)")}
	case timeseries.Is(p.Props) || timeseries.IsDevops(p.Props):
		return &InputError{Err: fmt.Errorf("workers: the time-series workloads are not supported with workers yet (every worker would write the same series and times)")}
	case p.insertsWhileRunning() && !p.LoadOnly:
		return &InputError{Err: fmt.Errorf("workers: insertproportion > 0 is not supported with workers yet: every worker would insert the same new keys")}
	case p.Registry[p.Driver].Embedded != nil && p.Registry[p.Driver].Embedded.DataProp != "":
		servers, memory := p.Registry.Servers()
		return &InputError{Err: fmt.Errorf("workers: driver %s keeps its data in one process's files; workers need a server (%s) or %s", p.Driver, strings.Join(servers, ", "), strings.Join(memory, "/"))}
	}
	return nil
}

// insertsWhileRunning tells whether the run phases insert new records.
func (p *Plan) insertsWhileRunning() bool {
	v, _, ok := p.Props.Lookup("insertproportion")
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return err == nil && f > 0
}

// Shares splits the plan into n shares: a disjoint slice of the load
// phase's key range each (insertstart/insertcount), a seed derived from
// the run's seed and the index, 1/n of the target rate (integer parts
// spread so the sum is exact; the fraction goes to share 0), of the
// clients and of a count bound. Too little to split is a *ShareError
// (wrapped in InputError).
func (p *Plan) Shares(n int) ([]Share, error) {
	if n < 1 {
		return nil, &InputError{Err: &ShareError{Workers: n, What: "expected at least 1 worker"}}
	}
	if err := p.WorkersUnsupported(); err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) ([]Share, error) {
		return nil, &InputError{Err: &ShareError{Workers: n, What: fmt.Sprintf(format, args...)}}
	}
	s := p.Config.Settings()
	records := p.Workload.LoadCount()
	insertStart, _ := p.Props.Int("insertstart", 0)
	if !p.SkipLoad && records < int64(n) {
		return bad("the load phase inserts %d records", records)
	}
	if s.Model != run.OpenName && p.Config.Clients < n {
		return bad("the closed model has %d clients", p.Config.Clients)
	}
	if s.Rate > 0 && s.Rate/float64(n) < 1 {
		return bad("a target rate of %g ops/s is below 1 op/s per worker", s.Rate)
	}
	for _, st := range p.Schedule {
		if st.Rate > 0 && st.Rate/float64(n) < 1 {
			return bad("the rate schedule's %v is below 1 op/s per worker", st)
		}
	}
	if !p.LoadOnly && p.Config.Operations > 0 && p.Config.Operations < int64(n) {
		return bad("operationcount is %d", p.Config.Operations)
	}
	raw := map[string]string{}
	for k := range p.Props.Map() {
		v, _, _ := p.Props.Lookup(k)
		raw[k] = v
	}
	shares := make([]Share, n)
	loadFirst := insertStart
	for i := range shares {
		sh := Share{
			Index: i, Workers: n, Driver: p.Driver, Props: map[string]string{}, LoadProps: map[string]string{},
			Model: s.Model, Arrival: s.Arrival, Warmup: p.Config.Warmup, ThinkTime: p.ThinkTime,
			OpTimeout: p.Config.OpTimeout, MaxBacklog: p.MaxBacklog, LoadBatch: p.Config.LoadBatch,
			LoadDuration: p.Config.LoadDuration, Seed: ShareSeed(p.Config.Seed, i),
			SkipLoad: p.SkipLoad, LoadOnly: p.LoadOnly,
		}
		for k, v := range raw {
			sh.Props[k] = v
		}
		sh.Props["threadcount"] = strconv.FormatInt(split(int64(p.Config.Clients), n, i, true), 10)
		if p.Config.Operations > 0 && !p.LoadOnly {
			sh.Props["operationcount"] = strconv.FormatInt(split(p.Config.Operations, n, i, false), 10)
		}
		if s.Rate > 0 && len(p.Schedule) == 0 {
			sh.Props["target"] = strconv.FormatFloat(splitRate(s.Rate, n, i), 'g', -1, 64)
		}
		for _, st := range p.Schedule {
			st.Rate = splitRate(st.Rate, n, i)
			sh.Schedule = append(sh.Schedule, st)
		}
		count := split(records, n, i, false)
		sh.LoadProps["insertstart"] = strconv.FormatInt(loadFirst, 10)
		sh.LoadProps["insertcount"] = strconv.FormatInt(count, 10)
		loadFirst += count
		shares[i] = sh
	}
	return shares, nil
}

// split is share i of total over n: the remainder goes one each to the
// first shares, so the shares add up to total exactly. atLeastOne gives a
// share of 0 one (an open model's client pool smaller than n).
func split(total int64, n, i int, atLeastOne bool) int64 {
	q := total / int64(n)
	if int64(i) < total%int64(n) {
		q++
	}
	if atLeastOne && q < 1 {
		q = 1
	}
	return q
}

// splitRate is share i of a rate: the integer part split as split does,
// the fraction added to share 0, so the shares add up to rate.
func splitRate(rate float64, n, i int) float64 {
	whole := math.Floor(rate)
	r := float64(split(int64(whole), n, i, false))
	if i == 0 {
		r += rate - whole
	}
	return r
}

// ShareSeed derives worker i's seed from the run's seed (splitmix64), so
// workers draw different keys and the run stays reproducible.
func ShareSeed(seed int64, i int) int64 {
	z := uint64(seed) + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return int64(z ^ (z >> 31))
}

// ShareRunner is a worker's opened share: the driver, and a plan for the
// load phase (its key slice) and one for the run phases (the whole key
// range, as a single process would use).
type ShareRunner struct {
	load, run *Plan
	db        driver.DB
	scratch   string
}

// resolveShare builds the plan of a share, with extra properties on top.
func resolveShare(s Share, extra map[string]string) (*Plan, error) {
	opts := Options{
		Driver: s.Driver, Model: s.Model, Schedule: s.Schedule, Arrival: s.Arrival, Warmup: s.Warmup,
		ThinkTime: s.ThinkTime, OpTimeout: s.OpTimeout, MaxBacklog: s.MaxBacklog, LoadBatch: s.LoadBatch,
		LoadDuration: s.LoadDuration, Seed: s.Seed, SkipLoad: s.SkipLoad, LoadOnly: s.LoadOnly,
		Command: fmt.Sprintf("dbrig worker (share %d of %d)", s.Index, s.Workers),
	}
	if opts.Registry == nil {
		opts.Registry = all.Registry()
	}
	if _, ok := opts.Registry[s.Driver]; !ok {
		return nil, &InputError{Err: fmt.Errorf("%w %q", driver.ErrUnknownDriver, s.Driver)}
	}
	props := spec.NewProps()
	src := spec.Source{Flag: "coordinator"}
	keys := make([]string, 0, len(s.Props))
	for k := range s.Props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		props.Set(k, s.Props[k], src)
	}
	for k, v := range extra {
		props.Set(k, v, src)
	}
	props.Declare(opts.Registry[s.Driver].Props...)
	p := &Plan{Options: opts, Props: props}
	var err error
	if p.Workload, p.Warnings, err = newWorkload(props); err != nil {
		return nil, input(err)
	}
	if p.Config, err = loadConfig(opts, props); err != nil {
		return nil, input(err)
	}
	p.Config.Seed = s.Seed
	return p, nil
}

// OpenShare resolves a share and opens its driver. The data is not
// prepared (no recreate, no preloaded check): the coordinator did that
// once for all workers.
func OpenShare(ctx context.Context, s Share) (*ShareRunner, error) {
	lp, err := resolveShare(s, s.LoadProps)
	if err != nil {
		return nil, fmt.Errorf("share %d (load): %w", s.Index, err)
	}
	rp, err := resolveShare(s, nil)
	if err != nil {
		return nil, fmt.Errorf("share %d: %w", s.Index, err)
	}
	scratch, err := makeScratch(s.Driver)
	if err != nil {
		return nil, err
	}
	db, err := rp.Registry.Open(ctx, s.Driver, driver.Config{Props: rp.Props, Dir: scratch})
	if err != nil {
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("open %s: %w", s.Driver, err)
	}
	return &ShareRunner{load: lp, run: rp, db: db, scratch: scratch}, nil
}

// Load runs the share's load phase (its key slice).
func (r *ShareRunner) Load(ctx context.Context, obs run.Observer) (measure.Summary, error) {
	return run.Load(ctx, r.db, r.load.Workload, r.load.Config, obs)
}

// Run runs the share's warmup and measure phases over the whole key range.
func (r *ShareRunner) Run(ctx context.Context, obs run.Observer) ([]measure.Summary, error) {
	return run.Run(ctx, r.db, r.run.Workload, r.run.Config, obs)
}

// Ops are the operation names of the run phases, in the workload's order.
func (r *ShareRunner) Ops() []string { return r.run.Workload.Ops() }

// Origin is the driver's time origin, when it has one (driver.TimeOrigin).
func (r *ShareRunner) Origin() time.Time {
	if o, ok := r.db.(driver.TimeOrigin); ok {
		return o.Origin()
	}
	return time.Time{}
}

// Close closes the driver and removes its scratch directory.
func (r *ShareRunner) Close() error {
	err := r.db.Close()
	os.RemoveAll(r.scratch)
	return err
}

// Performer replaces the load, warmup and measure phases of Execute (see
// Hooks.Perform): it feeds obs every interval and event in order and
// returns the phases' summaries. It may write diagnosis rows of its own
// to store under runID.
type Performer func(ctx context.Context, store *results.Store, runID int64, obs run.Observer) ([]measure.Summary, error)

// OpenOptions are the options of the validation's open-model run (the one
// compared with the queue model), for running it elsewhere, e.g. on
// workers.
func (v Validation) OpenOptions(store string) Options { return v.options(store, "open") }

// RunOnWorkers performs a plan on n worker processes and stores the
// merged run (the command provides it: package workers sits above this
// one).
type RunOnWorkers func(ctx context.Context, p *Plan, n int, h Hooks) (*Outcome, error)

// checkWorkers refuses an experiment file's workers: that cannot be split
// (bad input at the workers: key's file:line:column).
func checkWorkers(e spec.Experiment, p *Plan) error {
	if e.Workers == 0 {
		return nil
	}
	if _, err := p.Shares(e.Workers); err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			err = ie.Err
		}
		return &InputError{Err: e.Errorf("workers", "%v", err)}
	}
	return nil
}

// executeBenchRun performs one run of an experiment file: on workers when
// the file says so.
func executeBenchRun(ctx context.Context, r BenchRun, h Hooks) (*Outcome, error) {
	if r.Exp.Workers == 0 {
		return Execute(ctx, r.Plan, h)
	}
	if h.OnWorkers == nil {
		return nil, &InputError{Err: r.Exp.Errorf("workers", "this command cannot run workers")}
	}
	return h.OnWorkers(ctx, r.Plan, r.Exp.Workers, h)
}

// Secrets names the share's properties that hold a secret (a password, a
// token, a URL or DSN with a password), sorted: they must reach only an
// authenticated worker.
func (s Share) Secrets() []string {
	var out []string
	for _, m := range []map[string]string{s.Props, s.LoadProps} {
		for k, v := range m {
			if spec.RedactProp(k, v) != v {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Package experiment runs an experiment end to end: from what the user asked
// for (Options) it resolves a Plan before anything starts, then opens the
// driver, loads, runs, wires the observers (results store, HDR log, the
// caller's progress line; later metrics and faults) and returns the Outcome.
// Commands (dbrig run, load, validate, and later bench, rate, worker) are
// thin callers of Resolve and Execute; this package prints nothing.
package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/loadmodel"
	"github.com/dbrig/dbrig/outfile"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/scenario"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload"
)

// Options is what the user asked for, as given: property files and values
// (YCSB's way), flag values that override them, and the run's labels. The
// zero value of a field means "not given".
type Options struct {
	Driver    string   // "" = pebble
	PropFiles []string // -P: files or built-in workload names, in order
	Props     []string // -p key=value, after the files; they win
	// Overrides are properties set by dedicated flags (--clients sets
	// threadcount, --rate target, --duration maxexecutiontime); they win over
	// files and -p, and are stored as what ran.
	Overrides []Override

	Model      string         // "closed", "open" or "" (open when a rate or schedule is set)
	Schedule   []run.RateStep // open model: the target rate over time, instead of a rate
	Arrival    string         // open model: "constant" (default) or "poisson"
	Warmup     time.Duration
	ThinkTime  time.Duration
	OpTimeout  time.Duration
	MaxBacklog int // 0 = run.DefaultMaxBacklog
	LoadBatch  int // 0 = run.DefaultLoadBatch
	// LoadDuration bounds the load phase (dbrig load --duration).
	LoadDuration time.Duration
	Seed         int64 // 0 = pick one (it is stored)

	SkipLoad bool // the store already holds the data
	Recreate bool // drop the benchmark data (driver.Resetter) before loading
	LoadOnly bool // dbrig load: no warmup or measure phase

	Name    string
	Tags    []string
	Command string   // a fixed description of the command (when Args is nil)
	Args    []string // the command line as given: stored redacted, rendered by meaning
	Store   string   // results store address ("" = the per-user default)
	HDRLog  string   // also write an HdrHistogram interval log here
	Force   bool     // outputs may replace an existing file dbrig did not write (never a database)

	Registry driver.Registry // nil = every driver dbrig has
	// Getenv, when set, reads the driver's connection properties from the
	// environment (driver.Driver.Env, what `dbrig cluster env` exports) where
	// nothing else set them; never with a Cluster or Attached nodes.
	Getenv Getenv

	// Cluster, if set, is stood up before the driver opens, pointed at by
	// the driver's properties, sampled while the run goes, torn down after.
	Cluster *ClusterPlan
	// Attached are the nodes of a cluster stood up for several runs
	// (StandUp): the run records and samples them as its own.
	Attached []cluster.Node
	// Faults are injected on the cluster's nodes during the measure phase.
	Faults []scenario.Injection
	// Verify reads back every acknowledged insert and delete after the run
	// (lost writes, verify.go).
	Verify bool
}

// Override is one property set by a dedicated flag or an experiment file.
type Override struct {
	Flag, Key, Value string
	Src              spec.Source // where it was set; zero: the flag
}

// Plan is a resolved experiment: every choice made, every input checked.
// Nothing has been opened or stored yet.
type Plan struct {
	Options
	Props    *spec.Props
	SpecText string // every property as resolved, redacted, with its source: what is stored
	// Warnings are things the user should know before the run, such as
	// YCSB properties dbrig accepts but ignores.
	Warnings []string
	Workload workload.Workload // ycsb's CoreWorkload or tpcc (see newWorkload)
	Config   run.Config
	// CountCap is set when a property file's operationcount may end the run
	// before the duration asked for (its warning is in Warnings).
	CountCap *CountCap
}

// Workload returns the stored name of the workload: the -P names joined.
func (p *Plan) WorkloadName() string {
	if len(p.PropFiles) == 0 {
		return "workloada"
	}
	names := make([]string, len(p.PropFiles))
	for i, f := range p.PropFiles {
		names[i] = strings.TrimSuffix(baseName(f), ".properties")
	}
	return strings.Join(names, "+")
}

// LoadOps is how many load operations (batches) the load phase performs.
func (p *Plan) LoadOps() int64 {
	if n, ok := p.loadOps(); ok {
		return n
	}
	b := int64(p.Config.LoadBatch)
	return (p.Workload.LoadCount() + b - 1) / b
}

// quickstart is what a run uses when no -P file is given: YCSB workload A on
// a data set big enough to be worth measuring, for 10 seconds.
var quickstart = []string{"recordcount=100000", "operationcount=0", "maxexecutiontime=10"}

// Resolve checks opts and turns them into a Plan. Every error is bad input
// (an InputError, or a typed error IsInput recognises).
func Resolve(opts Options) (*Plan, error) {
	if opts.Registry == nil {
		opts.Registry = all.Registry()
	}
	if _, ok := opts.Registry[opts.Driver]; !ok && opts.Driver != "" {
		return nil, &InputError{Err: fmt.Errorf("%w %q (expected one of: %v)", driver.ErrUnknownDriver, opts.Driver, opts.Registry.Names())}
	}
	props, err := buildProps(opts.PropFiles, opts.Props, opts.Overrides)
	if err != nil {
		return nil, err
	}
	// YCSB's db= names a binding class: honoured where dbrig has the same
	// thing, refused otherwise (ycsbclass.go; workload= in newWorkload).
	if opts.Driver, err = chooseDriver(opts.Driver, props, opts.Registry); err != nil {
		return nil, input(err)
	}
	// The driver's declared properties are known (so a typo is found here,
	// before anything connects) and its secrets are redacted by format.
	props.Declare(opts.Registry[opts.Driver].Props...)
	if opts.Cluster == nil && len(opts.Attached) == 0 {
		fromEnv(props, opts.Registry[opts.Driver], opts.Getenv)
	}
	p := &Plan{Options: opts, Props: props}
	if p.Workload, p.Warnings, err = newWorkload(props); err != nil {
		return nil, input(err)
	}
	if p.Config, err = loadConfig(opts, props); err != nil {
		return nil, input(err)
	}
	if p.CountCap = countCap(props, p.Config.Operations, p.Config.Duration); p.CountCap != nil {
		p.Warnings = append(p.Warnings, p.CountCap.Warning())
	}
	if w := bindingWarning(props, props.IsKnown); w != "" {
		p.Warnings = append(p.Warnings, w)
	}
	if err := props.Unknown(); err != nil {
		return nil, input(err)
	}
	if err := outfile.CheckForce(p.Outputs(), p.Protected(), p.Force); err != nil {
		return nil, &InputError{Err: err}
	}
	if err := p.checkDataPaths(); err != nil {
		return nil, &InputError{Err: err}
	}
	p.SpecText = props.Text()
	return p, nil
}

// again is the plan for one execution: a copy with a workload of its own.
// A workload keeps the state of its run (the load's insert sequence, the
// keys inserted since), so a Plan executed a second time with the first
// run's workload would read keys its new load never wrote.
func (p *Plan) again() (*Plan, error) {
	w, _, err := newWorkload(p.Props)
	if err != nil {
		return nil, input(err)
	}
	q := *p
	q.Workload = w
	return &q, nil
}

// Outputs are the files the run writes besides the results store.
func (p *Plan) Outputs() []outfile.Path {
	return []outfile.Path{{Role: "--hdrlog", Path: p.HDRLog}}
}

// Protected are the paths no output may overwrite: the results store (when
// it is a file) and the run's data paths.
func (p *Plan) Protected() []outfile.Path {
	var out []outfile.Path
	if f, ok := results.File(p.Store); ok {
		out = append(out, outfile.Path{Role: "results store", Path: f})
	}
	// Where an embedded driver keeps its data (driver.Embedded.DataProp):
	// no output may be written there.
	for _, name := range p.Registry.Names() {
		e := p.Registry[name].Embedded
		if e == nil || e.DataProp == "" {
			continue
		}
		k := e.DataProp
		if v, _, ok := p.Props.Lookup(k); ok && v != "" {
			out = append(out, outfile.Path{Role: k, Path: v})
		}
	}
	return out
}

// buildProps assembles properties the way YCSB does: -P files in order, then
// -p values, then flag overrides, each winning over the ones before. A -P
// name that is not a file but names a built-in workload uses the built-in.
func buildProps(files, sets []string, overrides []Override) (*spec.Props, error) {
	p := spec.NewProps()
	if len(files) == 0 {
		files = []string{"workloada"}
		sets = append(append([]string(nil), quickstart...), sets...)
	}
	for _, f := range files {
		b, err := readPropFile(f)
		name := f
		if errors.Is(err, os.ErrNotExist) {
			if builtin, ok := builtinFile(f); ok {
				b, err, name = builtin, nil, f+" (built-in)"
			}
		}
		if err != nil {
			return nil, &InputError{Err: fmt.Errorf("-P %s: %w (built-in workloads: %v)", f, err, builtinNames())}
		}
		if err := p.Load(name, bytes.NewReader(b)); err != nil {
			return nil, &InputError{Err: err}
		}
	}
	for _, kv := range sets {
		if err := p.SetFlag("-p", kv); err != nil {
			return nil, &InputError{Err: err}
		}
	}
	for _, o := range overrides {
		src := o.Src
		if src == (spec.Source{}) {
			src = spec.Source{Flag: o.Flag}
		}
		p.Set(o.Key, o.Value, src)
	}
	return p, nil
}

// readPropFile reads a -P file: a regular file of at most spec.MaxFileSize
// (a FIFO would block the run forever, a device could be endless).
func readPropFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%v): expected a property file", st.Mode().Type())
	}
	if st.Size() > spec.MaxFileSize {
		return nil, fmt.Errorf("%d bytes: expected a property file of at most %d MB", st.Size(), spec.MaxFileSize>>20)
	}
	return os.ReadFile(path)
}

// loadConfig builds the runner's config from YCSB's properties threadcount,
// target, operationcount and maxexecutiontime and the non-property options.
func loadConfig(opts Options, p *spec.Props) (run.Config, error) {
	p.Known("db", "status.interval", "measurement.interval")
	clients, err := p.IntMin("threadcount", 1, 1)
	if err != nil {
		return run.Config{}, err
	}
	cfg := run.Config{Clients: int(clients), LoadBatch: opts.LoadBatch, Seed: opts.Seed, LoadDuration: opts.LoadDuration}
	if cfg.LoadBatch == 0 {
		cfg.LoadBatch = run.DefaultLoadBatch
	}
	if cfg.LoadBatch < 0 {
		return cfg, &run.ConfigError{Field: "load batch", Value: cfg.LoadBatch, Want: "need at least 1"}
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
	if opts.LoadOnly {
		return cfg, cfg.Check(false)
	}
	cfg.Operations = ops
	cfg.Duration = time.Duration(maxSecs * float64(time.Second))
	if len(opts.Schedule) > 0 {
		if opts.Model == run.ClosedName {
			return cfg, &run.ConfigError{Field: "schedule", Value: "closed model", Want: "rate schedules belong to the open model"}
		}
		open, err := run.ModelNamed(run.OpenName, loadmodel.Load{Arrival: opts.Arrival, MaxBacklog: opts.MaxBacklog, ThinkTime: opts.ThinkTime})
		if err != nil {
			return cfg, err
		}
		o := open.(run.Open)
		o.Schedule, o.Rate = opts.Schedule, 0
		cfg.Model = o
		if cfg.Duration == 0 {
			for _, s := range opts.Schedule {
				cfg.Duration += s.For // the schedule's length bounds the run
			}
		}
	} else if cfg.Model, err = run.ModelNamed(opts.Model, loadmodel.Load{Rate: rate, Arrival: opts.Arrival, ThinkTime: opts.ThinkTime, MaxBacklog: opts.MaxBacklog}); err != nil {
		return cfg, err
	}
	cfg.Warmup = opts.Warmup
	cfg.OpTimeout = opts.OpTimeout
	if cfg.SpinWait, err = p.Duration("spinwait", run.DefaultSpinWait); err != nil {
		return cfg, err
	} else if cfg.SpinWait < 0 || cfg.SpinWait > time.Second {
		return cfg, p.Errorf("spinwait", "a duration from 0 (sleep only) to 1s")
	}
	return cfg, cfg.Check(true)
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// KubeFaults tells whether the plan's scenario has faults on Kubernetes
// targets.
func (p *Plan) KubeFaults() bool { return scenario.OnKubernetes(p.Faults) }

// checkDataPaths refuses a benchmarked store's data path that is the results
// store (sqlite.path = --store would write benchmark tables into it).
func (p *Plan) checkDataPaths() error {
	f, ok := results.File(p.Store)
	if !ok {
		return nil
	}
	for _, name := range p.Registry.Names() {
		e := p.Registry[name].Embedded
		if e == nil || e.DataProp == "" {
			continue
		}
		if v, _, ok := p.Props.Lookup(e.DataProp); ok && v != "" {
			if err := outfile.Overlap(outfile.Path{Role: e.DataProp, Path: v}, outfile.Path{Role: "results store", Path: f}); err != nil {
				return err
			}
		}
	}
	return nil
}

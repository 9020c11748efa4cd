package experiment

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/scenario"
	"github.com/dbrig/dbrig/spec"
)

// MaxRunsWithoutConfirm bounds how many runs an experiment file may make
// unless the user confirms (dbrig bench --yes): a matrix multiplies fast.
const MaxRunsWithoutConfirm = 100

// BenchOptions are the command-line choices that apply to a whole file.
type BenchOptions struct {
	Sets     []string // --set key.path=value, applied before the matrix
	Store    string
	HDRLog   string // one log per run: the run number is added before the extension
	Force    bool   // --force: outputs may replace files dbrig did not write
	Yes      bool   // allow more than MaxRunsWithoutConfirm runs
	Registry driver.Registry
}

// Bench is an experiment file resolved into the runs it makes, each with
// its plan: everything is checked before the first run starts.
type Bench struct {
	File string
	Name string
	Runs []BenchRun
}

// BenchRun is one run of a Bench: a matrix combination and a repetition.
type BenchRun struct {
	Exp    spec.Experiment
	Repeat int // 1-based
	Plan   *Plan
}

// Label names the run among its siblings: its matrix values and repetition.
func (r BenchRun) Label() string {
	var parts []string
	if g := r.Group(); g != "" {
		parts = append(parts, g)
	}
	if r.Exp.Repeat > 1 {
		parts = append(parts, fmt.Sprintf("rep=%d", r.Repeat))
	}
	return strings.Join(parts, " ")
}

// Group names the run's matrix combination: its Label without the
// repetition (the runs a bench's comparison puts in one row).
func (r BenchRun) Group() string {
	var parts []string
	for _, m := range r.Exp.Matrix {
		parts = append(parts, shortKey(m.Key)+"="+m.Value)
	}
	return strings.Join(parts, " ")
}

func shortKey(k string) string {
	if i := strings.LastIndex(k, "."); i >= 0 {
		return k[i+1:]
	}
	return k
}

// ResolveBench reads an experiment file and resolves every run it makes.
// Every error is bad input with the file's position.
func ResolveBench(path string, o BenchOptions) (*Bench, error) {
	if o.Registry == nil {
		o.Registry = all.Registry()
	}
	n, err := spec.CountCombinations(path, o.Sets)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	exps, err := spec.ReadExperiment(path, o.Sets)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	total := n * exps[0].Repeat
	if total > MaxRunsWithoutConfirm && !o.Yes {
		return nil, &InputError{Err: exps[0].Errorf("matrix", "makes %d runs (matrix × repeat): more than %d; say --yes if that is meant", total, MaxRunsWithoutConfirm)}
	}
	b := &Bench{File: path, Name: exps[0].Name}
	if b.Name == "" {
		b.Name = strings.TrimSuffix(baseName(path), ".yaml")
	}
	for _, e := range exps {
		for rep := 1; rep <= e.Repeat; rep++ {
			r := BenchRun{Exp: e, Repeat: rep}
			opts, err := benchOptions(e, b.Name, r.Label(), o)
			if err != nil {
				return nil, &InputError{Err: err}
			}
			if len(b.Runs) > 0 && o.HDRLog != "" {
				opts.HDRLog = numbered(o.HDRLog, len(b.Runs)+1)
			}
			if r.Plan, err = Resolve(opts); err != nil {
				return nil, foreignProps(e, err, o.Registry)
			}
			if err := checkWorkers(e, r.Plan); err != nil {
				return nil, err
			}
			if r.Plan.Faults, err = scenario.Cycle(e, recipeOf(r.Plan.Cluster), r.Plan.Faults, rep); err != nil {
				return nil, &InputError{Err: err}
			}
			b.Runs = append(b.Runs, r)
		}
	}
	return b, nil
}

// benchOptions turns one combination of an experiment file into the
// options of one run. Values from the file keep their file:line, so a bad
// property is reported where it was written.
func benchOptions(e spec.Experiment, name, label string, o BenchOptions) (Options, error) {
	if _, ok := o.Registry[e.System.Driver]; !ok {
		return Options{}, e.Errorf("system.driver", "%v %q (expected one of: %s)", driver.ErrUnknownDriver, e.System.Driver, strings.Join(o.Registry.Names(), ", "))
	}
	cp, err := clusterPlan(e)
	if err != nil {
		return Options{}, err
	}
	measure := e.Load.Duration
	if measure == 0 {
		for _, st := range e.Load.Schedule {
			measure += st.For
		}
	}
	faults, err := scenario.Plan(e, recipeOf(cp), measure)
	if err == nil && cp != nil {
		err = scenario.CheckLayout(e, faults, cp.Nodes)
	}
	if err != nil {
		return Options{}, err
	}
	opts := Options{
		Driver: e.System.Driver, PropFiles: e.Workload.Files,
		Model: e.Load.Model, Arrival: e.Load.Arrival, Warmup: e.Load.Warmup, ThinkTime: e.Load.ThinkTime,
		OpTimeout: e.Load.Timeout, MaxBacklog: e.Load.MaxBacklog, LoadBatch: e.Dataset.Batch, Seed: e.Load.Seed,
		SkipLoad: !e.Dataset.Load, Recreate: e.Dataset.Recreate, Store: o.Store, HDRLog: o.HDRLog, Force: o.Force, Registry: o.Registry, Cluster: cp, Faults: faults,
		Verify:  e.Verify,
		Name:    strings.TrimSpace(name + " " + label),
		Tags:    append([]string{"experiment:" + name}, e.Tags...),
		Command: "dbrig bench " + e.File,
	}
	for _, st := range e.Load.Schedule {
		opts.Schedule = append(opts.Schedule, st.RateStep)
	}
	if len(opts.PropFiles) == 0 {
		opts.PropFiles = []string{"workloada"}
	}
	if e.System.Version != "" {
		opts.Tags = append(opts.Tags, "version:"+e.System.Version)
	}
	for _, m := range e.Matrix {
		opts.Tags = append(opts.Tags, shortKey(m.Key)+":"+m.Value)
	}
	set := func(path, key, value string) {
		src := spec.Source{File: e.File}
		if p, ok := e.Position(path); ok {
			src.Line = p.Line
		}
		opts.Overrides = append(opts.Overrides, Override{Flag: path, Key: key, Value: value, Src: src})
	}
	for _, k := range slices.Sorted(maps.Keys(e.System.Props)) {
		set("system.props."+k, k, e.System.Props[k])
	}
	for _, k := range slices.Sorted(maps.Keys(e.Workload.Props)) {
		set("workload.props."+k, k, e.Workload.Props[k])
	}
	if e.Dataset.Records > 0 {
		set("dataset.records", "recordcount", strconv.FormatInt(e.Dataset.Records, 10))
	}
	if e.Load.Clients > 0 {
		set("load.clients", "threadcount", strconv.Itoa(e.Load.Clients))
	}
	if _, ok := e.Position("load.rate"); ok {
		set("load.rate", "target", strconv.FormatFloat(e.Load.Rate, 'g', -1, 64))
	}
	if _, ok := e.Position("load.operations"); ok {
		set("load.operations", "operationcount", strconv.FormatInt(e.Load.Operations, 10))
	} else if _, ok := e.Position("load.duration"); ok || len(e.Load.Schedule) > 0 {
		set("load.operations", "operationcount", "0") // a duration or schedule alone bounds the run
	}
	if _, ok := e.Position("load.duration"); ok {
		set("load.duration", "maxexecutiontime", strconv.FormatFloat(e.Load.Duration.Seconds(), 'f', -1, 64))
	}
	return opts, nil
}

// numbered puts n before a path's extension: run.hlog → run-2.hlog.
func numbered(path string, n int) string {
	dot := strings.LastIndex(path, ".")
	if dot <= strings.LastIndexAny(path, `/\`) {
		return fmt.Sprintf("%s-%d", path, n)
	}
	return fmt.Sprintf("%s-%d%s", path[:dot], n, path[dot:])
}

// BenchOutcome is one executed run of a Bench.
type BenchOutcome struct {
	Run     BenchRun
	Outcome *Outcome // nil: the run could not start (its error says why)
	Err     error
}

// Execute performs the runs in order. An interrupted run ends the bench
// (Ctrl-C means stop); a failed run does not stop the others. BeforeRun,
// when set, is called before each run (to print its label).
func (b *Bench) Execute(ctx context.Context, h Hooks, beforeRun func(i int, r BenchRun)) ([]BenchOutcome, error) {
	var out []BenchOutcome
	var errs []error
	for i, r := range b.Runs {
		if beforeRun != nil {
			beforeRun(i, r)
		}
		o, err := executeBenchRun(ctx, r, h)
		out = append(out, BenchOutcome{Run: r, Outcome: o, Err: err})
		if err != nil {
			errs = append(errs, fmt.Errorf("run %d/%d (%s): %w", i+1, len(b.Runs), r.Label(), err))
		}
		if ctx.Err() != nil {
			break
		}
	}
	return out, errors.Join(errs...)
}

// foreignProps turns an unknown property that names another driver
// (etcd.timeout in a run of redis) into an error that says where it
// belongs: workload.props reach every system of a matrix over systems, and
// a driver's own properties go in its system block's props.
func foreignProps(e spec.Experiment, err error, reg driver.Registry) error {
	var ue *spec.UnknownError
	if !errors.As(err, &ue) {
		return err
	}
	for _, k := range ue.Keys {
		owner, _, _ := strings.Cut(k, ".")
		if _, ok := reg[owner]; !ok || owner == e.System.Driver {
			continue
		}
		path := "workload.props." + k
		if _, ok := e.Position(path); !ok {
			path = "system.props." + k
		}
		where := "only a system driven by " + owner + " reads it"
		if slices.ContainsFunc(e.Matrix, func(m spec.MatrixPick) bool { return m.Key == "system" }) {
			where = "give it only in the props of the matrix.system value driven by " + owner
		}
		return &InputError{Err: e.Errorf(path, "%q is a property of the %s driver, and this run's system is %s: %s", k, owner, e.System.Driver, where)}
	}
	return err
}

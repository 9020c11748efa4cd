package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/gate"
	"github.com/dbrig/dbrig/outfile"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/spec"
)

// errRegressed: dbrig check found a regression (exit code 4, for CI gates).
var errRegressed = errors.New("regression")

// checkCmd: dbrig check NEW --baseline ID|tag:NAME|history:N [--fail-on RULE…].
func checkCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig check", e.stderr)
	storeDSN := fs.String("store", "", "results database (default: per-user data path)")
	baseline := fs.String("baseline", "", "what to check against: a run id, tag:NAME or history:N (the last N comparable finished runs)")
	var failOn listFlag
	fs.Var(&failOn, "fail-on", `a threshold, repeatable: [OP.]METRIC<PCT% or >PCT%, e.g. 'throughput<-5%' 'READ.p99>+10%' (default: `+fmt.Sprint(gate.DefaultRules)+`)`)
	file := fs.String("file", "", "an experiment file whose check: block gives the baseline, thresholds and confidence (flags win)")
	confidence := fs.String("confidence", "", "confidence level of the tests, e.g. 95% or 0.99 (default 95%)")
	asJSON := fs.Bool("json", false, "print the outcome as JSON instead of a table")
	junit := fs.String("junit", "", "also write the outcome as JUnit XML to this file")
	bmf := fs.String("bmf", "", "also write the new runs' figures in Bencher Metric Format (JSON) to this file")
	force := fs.Bool("force", false, "replace --junit/--bmf files that dbrig did not write")
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if len(pos) != 1 {
		return usagef("dbrig check: expected the runs to check: a run id or tag:NAME (e.g. dbrig check tag:ci-42 --baseline history:5)")
	}
	opts, base, err := checkOptions(*file, failOn, *baseline, *confidence)
	if err != nil {
		return err
	}
	for _, o := range []struct{ role, path string }{{"--junit", *junit}, {"--bmf", *bmf}} {
		if err := checkOut(o.role, o.path, *storeDSN, *force); err != nil {
			return err
		}
	}
	store, err := results.OpenExisting(ctx, *storeDSN)
	if err != nil {
		return err
	}
	defer store.Close()
	groups, err := gate.Load(ctx, store, pos[0], base)
	if err != nil {
		return gateErr(err)
	}
	rep, err := gate.Decide(groups, opts)
	if err != nil {
		return gateErr(err)
	}
	if *asJSON {
		err = gate.WriteJSON(e.stdout, rep)
	} else {
		err = report.CheckTable(e.stdout, rep)
	}
	if err != nil {
		return err
	}
	writes := []struct {
		path  string
		write func(io.Writer) error
	}{
		{*junit, func(w io.Writer) error { return gate.WriteJUnit(w, rep) }},
		{*bmf, func(w io.Writer) error { return gate.WriteBMF(w, groups) }},
	}
	for _, wr := range writes {
		if wr.path == "" {
			continue
		}
		if err := outfile.Write(wr.path, "", wr.write); err != nil {
			return err
		}
	}
	if n := rep.Failed(); n > 0 {
		return fmt.Errorf("%w: %d of %d rules failed", errRegressed, n, len(rep.Results))
	}
	return nil
}

// checkOptions merges an experiment file's check: block with the flags
// (which win, gate.Configure); bad input is exit code 2 before the store
// is opened.
func checkOptions(file string, failOn []string, baseline, confidence string) (gate.Options, spec.Baseline, error) {
	var check *spec.Check
	if file != "" {
		exps, err := spec.ReadExperiment(file, nil)
		if err != nil {
			return gate.Options{}, spec.Baseline{}, &experiment.InputError{Err: err}
		}
		check = exps[0].Check
	}
	o, base, err := gate.Configure(check, failOn, baseline, confidence)
	switch {
	case errors.Is(err, gate.ErrNoBaseline):
		return o, base, usagef("dbrig check: %v", err)
	case err != nil:
		return o, base, usagef("%v", err)
	}
	return o, base, nil
}

// gateErr makes the gate's bad input exit code 2.
func gateErr(err error) error {
	var ie *gate.InputError
	if errors.As(err, &ie) {
		return usagef("dbrig check: %v", err)
	}
	return err
}

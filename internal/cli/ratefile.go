package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/rating"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/sla"
)

// An experiment file's rate block (the rules: rating/file.go) with the
// rate command's flags; its SLA on each run of dbrig bench.

// judgeSLA evaluates a finished run against its SLA, prints the verdict and
// stores it with the run. It returns the failure ("" when met).
func judgeSLA(ctx context.Context, w io.Writer, storeDSN string, out *experiment.Outcome, s sla.SLA, stale *experiment.StaleReads) (string, error) {
	v := rating.Judge(out, s, stale)
	report.SLAVerdict(w, s, v.Result)
	if err := v.Store(ctx, storeDSN, out.RunID); err != nil {
		return "", err
	}
	if v.Result.Pass {
		return "", nil
	}
	return fmt.Sprintf("run %d missed its SLA: %s", out.RunID, v.Result.Failed()), nil
}

// rateOwnFlags may be given with `dbrig rate FILE`: they win over the
// file's rate block. Every other run flag belongs in the file (or --set).
var rateOwnFlags = map[string]bool{"sla": true, "sla-duration": true, "by": true, "precision": true, "reset": true,
	"max": true, "no-early-stop": true, "probe": true, "votes": true, "min-tail": true, "settle": true, "steadiness": true, "budget": true, "reference": true, "machine-load": true, "store": true, "json": true, "quiet": true, "set": true, "dry-run": true, "yes": true}

// rateFileCmd: dbrig rate FILE [--set k=v]… [rate flags].
func rateFileCmd(ctx context.Context, e *env, path string, rf *rating.Flags, f *runFlags, sets []string, dry bool) error {
	for name := range f.set {
		if !rateOwnFlags[name] {
			return usagef("dbrig rate %s: --%s belongs in the experiment file (or --set key.path=value)", path, name)
		}
	}
	b, err := experiment.ResolveBench(path, experiment.BenchOptions{Sets: sets, Store: f.store, Getenv: os.LookupEnv})
	if err != nil {
		return err
	}
	return rateBench(ctx, e, b, rf, f, dry)
}

// rateBench rates the one experiment of a resolved bench.
func rateBench(ctx context.Context, e *env, b *experiment.Bench, rf *rating.Flags, f *runFlags, dry bool) error {
	rf.Set = f.set
	opts, err := rating.FromFile(b, *rf)
	if err != nil {
		return err
	}
	if dry {
		report.Plan(e.stdout, b)
		fmt.Fprintf(e.stdout, "\nrating: %s\n", opts.Describe())
		return nil
	}
	return runRating(ctx, e, f, opts)
}

// benchRating: dbrig bench FILE on a file with a rate block rates it, with
// the rate command's defaults for what the block leaves out.
func benchRating(ctx context.Context, e *env, b *experiment.Bench, store string, jsonOut, quiet, dry bool, live liveFlags) error {
	rf := rating.FileDefaults()
	f := &runFlags{store: store, jsonOut: jsonOut, quiet: quiet, set: map[string]bool{}, live: live}
	return rateBench(ctx, e, b, &rf, f, dry)
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/outfile"
	"github.com/dbrig/dbrig/rating"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/spec"
)

// rateCmd: dbrig rate [run flags] --sla EXPR … — or dbrig rate list,
// dbrig rate show ID for stored ratings.
func rateCmd(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && (args[0] == "list" || args[0] == "show") {
		return rateShow(ctx, e, args)
	}
	f := &runFlags{set: map[string]bool{}}
	rf := &rating.Flags{}
	fs := newFlagSet("dbrig rate", e.stderr)
	f.define(fs, true)
	fs.Var((*listFlag)(&rf.SLA), "sla", "an SLA term or comma-separated terms: p95<100ms, p99.9<1s, READ.p99<10ms, errors<0.1%, dropped=0, unpredictable<0.01% (stale reads); repeatable")
	fs.DurationVar(&rf.SLADuration, "sla-duration", 60*time.Second, "how long the SLA must hold: the final confirmation run's length (Δ)")
	fs.StringVar(&rf.By, "by", rating.ByRate, "what to find the highest of: rate (throughput, open model) or clients (closed model)")
	fs.StringVar(&rf.Precision, "precision", "5%", "stop the search when the answer is known within this (relative)")
	fs.StringVar(&rf.Reset, "reset", rating.ResetReload, "how the data set is reset between experiments: "+strings.Join(rating.Strategies, ", "))
	fs.Float64Var(&rf.Max, "max", 0, "the highest rate (or clients) to try (0 = no bound)")
	fs.BoolVar(&rf.NoEarlyStop, "no-early-stop", false, "run every experiment for its full length, even when its outcome is certain")
	fs.BoolVar(&rf.Probe, "probe", true, "by rate without --rate: first measure the store's capacity (the client pool back to back, closed model, one --duration) and start the search at half of it; --probe=false starts at 100 ops/s")
	fs.IntVar(&rf.Votes, "votes", rating.DefaultVotes, "a target that fails is run again until a majority of up to this many runs agrees (odd; 1 = no repeats); a pass is taken at once while the search grows, and needs the majority once a target has failed (the final runs do not vote: their pass point is the answer)")
	fs.IntVar(&rf.MinTail, "min-tail", rating.DefaultMinTail, "by rate, each experiment lasts until this many operations lie beyond the SLA's percentile (p95: 20× as many in all; at most 10× --duration); 0 = no minimum")
	fs.BoolVar(&rf.Settle, "settle", true, "after the first load and each reset, wait until the store has finished its background work (compactions, vacuum) before the experiment; --settle=false skips it")
	fs.DurationVar(&rf.Steadiness, "steadiness", 5*time.Second, "first measure this long how steady this machine's speed is (stored, and a warning when less steady than the precision); 0 = skip")
	fs.DurationVar(&rf.Budget, "budget", 0, "cap the rating's total time: the search stops with the best bracket found (and says its precision) when its next experiment and the least final runs would not fit, and the final runs with the band they reached; 0 = no cap")
	fs.BoolVar(&rf.Reference, "reference", true, "run a short reference read burst (the client pool back to back) before the first and after the last experiment: whether the capacity moved during the rating")
	fs.BoolVar(&rf.MachineLoad, "machine-load", true, "before each experiment, measure for 300 ms how much of this machine other processes keep busy: a failure while they held it says little about the store on the machine unloaded, and the interval says so")
	var sets listFlag
	fs.Var(&sets, "set", "with an experiment FILE: override a value of the file (key.path=value, e.g. rate.reset=keep); repeatable")
	dry := fs.Bool("dry-run", false, "with an experiment FILE: print what the rating would run and exit")
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if err := f.live.check(e); err != nil {
		return err
	}
	if err := pinSelf(f.cpus); err != nil {
		return err
	}
	if len(pos) == 1 && spec.IsExperimentFile(pos[0]) {
		return rateFileCmd(ctx, e, pos[0], rf, f, sets, *dry)
	}
	if len(pos) > 0 {
		return usagef("dbrig rate: unexpected argument %q (an experiment file ends in .yaml; properties are given as -p key=value)", pos[0])
	}
	if len(sets) > 0 || *dry {
		return usagef("dbrig rate: --set and --dry-run need an experiment file: dbrig rate FILE.yaml")
	}
	opts, err := rateOptions(rf, f, append([]string{"rate"}, args...))
	if err != nil {
		return err
	}
	return runRating(ctx, e, f, opts)
}

// runRating performs a rating and prints it.
func runRating(ctx context.Context, e *env, f *runFlags, opts rating.Options) error {
	hooks := rating.Hooks{Warn: func(err error) { fmt.Fprintf(e.stderr, "warning: %v\n", err) }}
	if !f.quiet {
		hooks.Started = func(id int64, store string) {
			fmt.Fprintf(e.stderr, "rating %d: SLA %s, by %s, reset %s; results in %s\n", id, opts.SLA, opts.By, opts.Reset, store)
		}
		hooks.Step = func(s rating.Step) { fmt.Fprintf(e.stderr, "  %s\n", s.Line(opts.By)) }
		hooks.Planned = func(b rating.Budget) { fmt.Fprintf(e.stderr, "  %s\n", b.Line()) }
		hooks.Progress = func(p rating.Progress) { fmt.Fprintf(e.stderr, "    %s\n", p.Line()) }
	}
	live, err := f.live.start(e)
	if err != nil {
		return err
	}
	if live != nil {
		hooks.Live(live, opts)
	}
	r, rateErr := rating.Rate(ctx, opts, hooks)
	live.Close()
	if r == nil {
		return rateErr
	}
	if err := printRating(ctx, e, f, r); err != nil {
		rateErr = errors.Join(rateErr, err)
	}
	if rateErr != nil && ctx.Err() != nil {
		return errInterrupted
	}
	return rateErr
}

// rateOptions checks rate's own flags against run's and builds the
// rating's options; the search starts at --rate (or --clients with --by
// clients), and --duration is each search experiment's length.
func rateOptions(rf *rating.Flags, f *runFlags, args []string) (rating.Options, error) {
	if rf.By == rating.ByClients && (f.set["rate"] || f.set["target"]) {
		return rating.Options{}, usagef("--by clients searches the number of clients (closed model): remove --rate")
	}
	if f.set["probe"] && rf.Probe {
		switch {
		case rf.By == rating.ByClients:
			return rating.Options{}, usagef("--probe measures the capacity a search by rate starts from; --by clients starts at --clients (1 without it): remove --probe")
		case f.set["rate"] || f.set["target"]:
			return rating.Options{}, usagef("--probe measures the capacity the search starts from, and --rate gives the start: remove one")
		}
	}
	if f.set["hdrlog"] {
		return rating.Options{}, usagef("--hdrlog: a rating runs several experiments; use dbrig run at the answer for a log")
	}
	base := *f
	base.set = maps.Clone(f.set)
	start, startKeys := f.rate, []string{"rate", "target"}
	if rf.By == rating.ByClients {
		start, startKeys = float64(f.clients), []string{"clients", "threads"}
	}
	if !f.set[startKeys[0]] && !f.set[startKeys[1]] {
		start = 0
	}
	for _, k := range append(startKeys, "duration") {
		delete(base.set, k)
	}
	o, err := rating.FromFlags(*rf, start, f.duration, f.set["duration"], f.set["warmup"] && f.warmup == 0)
	o.Base = base.options(true, args)
	return o, err
}

// printRating prints the stored rating as a table (stderr with --json,
// which prints the JSON to stdout).
func printRating(ctx context.Context, e *env, f *runFlags, r *rating.Rating) error {
	out := e.stdout
	if f.jsonOut {
		out = e.stderr
	}
	store, err := results.Open(context.WithoutCancel(ctx), f.store)
	if err != nil {
		return err
	}
	defer store.Close()
	stored, err := store.GetRating(context.WithoutCancel(ctx), r.ID)
	if err != nil {
		return err
	}
	fmt.Fprintln(out)
	if err := report.RatingDone(out, stored, r.Rule, r.Time.SettleS, r.Left); err != nil {
		return err
	}
	if f.jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false) // p95<50ms, not p95\u003c50ms
		return enc.Encode(r)
	}
	return nil
}

// rateShow: dbrig rate list | dbrig rate show ID.
func rateShow(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig rate "+args[0], e.stderr)
	storeDSN := fs.String("store", "", "results database (default: per-user data path)")
	limit := fs.Int("limit", 50, "list: at most this many ratings, newest first")
	force := fs.Bool("force", false, "--png may replace an existing file dbrig did not write")
	png := fs.String("png", "", "show: also plot the rating (target vs the SLA's latency, the limit, the answer) into this PNG file")
	pos, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if args[0] == "show" && len(pos) != 1 || args[0] == "list" && len(pos) != 0 {
		return usagef("dbrig rate: expected list or show ID [--png FILE]")
	}
	if *png != "" {
		if err := checkOut("--png", *png, *storeDSN, *force); err != nil {
			return err
		}
	}
	store, err := results.OpenExisting(ctx, *storeDSN)
	if err != nil {
		return err
	}
	defer store.Close()
	if args[0] == "list" {
		rs, err := store.ListRatings(ctx, *limit)
		if err != nil {
			return err
		}
		return report.RatingList(e.stdout, rs)
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return usagef("dbrig rate show %q: expected a rating id", pos[0])
	}
	r, err := store.GetRating(ctx, id) // results.ErrNoRating: exit code 2
	if err != nil {
		return err
	}
	if err := report.Rating(e.stdout, r); err != nil {
		return err
	}
	if *png == "" {
		return nil
	}
	if err := outfile.Write(*png, "--png "+*png+": ", func(w io.Writer) error {
		tag := outfile.TagPNG(w) // so that a later --png recognises it as dbrig's
		return errors.Join(report.RatingPNG(tag, r), tag.Flush())
	}); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "plot written to %s\n", *png)
	return nil
}

// ratingReport: dbrig report rating:ID [-o FILE] writes a rating as a
// self-contained HTML page (its plot, answer and experiments).
func ratingReport(ctx context.Context, e *env, storeDSN, idText, out string, force bool) error {
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return usagef("rating:%s: expected a rating id (see dbrig rate list)", idText)
	}
	if out == "" {
		out = "rating-" + idText + ".html"
	}
	if err := checkOut("-o", out, storeDSN, force); err != nil {
		return err
	}
	store, err := results.OpenExisting(ctx, storeDSN)
	if err != nil {
		return err
	}
	defer store.Close()
	r, err := store.GetRating(ctx, id) // results.ErrNoRating: exit code 2
	if err != nil {
		return err
	}
	if err := outfile.Write(out, "", func(w io.Writer) error {
		return outfile.Prefix(fmt.Sprintf("report rating %d: ", id), report.RatingHTML(w, r))
	}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", out)
	return nil
}

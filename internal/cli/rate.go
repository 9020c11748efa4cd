package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/internal/outfile"
	"github.com/dbrig/dbrig/rating"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/sla"
)

// rateFlags are `dbrig rate`'s own flags, beside those of `dbrig run`.
type rateFlags struct {
	sla         listFlag
	slaDuration time.Duration
	by          string
	precision   string
	reset       string
	max         float64
	noEarly     bool
	probe       bool
	votes       int
	minTail     int
	settle      bool
	steadiness  time.Duration // 0: the machine's steadiness is not measured
}

// rateCmd: dbrig rate [run flags] --sla EXPR … — or dbrig rate list,
// dbrig rate show ID for stored ratings.
func rateCmd(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && (args[0] == "list" || args[0] == "show") {
		return rateShow(ctx, e, args)
	}
	f := &runFlags{set: map[string]bool{}}
	rf := &rateFlags{}
	fs := newFlagSet("dbrig rate", e.stderr)
	f.define(fs, true)
	fs.Var(&rf.sla, "sla", "an SLA term or comma-separated terms: p95<100ms, p99.9<1s, READ.p99<10ms, errors<0.1%, dropped=0, unpredictable<0.01% (stale reads); repeatable")
	fs.DurationVar(&rf.slaDuration, "sla-duration", 60*time.Second, "how long the SLA must hold: the final confirmation run's length (Δ)")
	fs.StringVar(&rf.by, "by", rating.ByRate, "what to find the highest of: rate (throughput, open model) or clients (closed model)")
	fs.StringVar(&rf.precision, "precision", "5%", "stop the search when the answer is known within this (relative)")
	fs.StringVar(&rf.reset, "reset", rating.ResetReload, "how the data set is reset between experiments: "+strings.Join(rating.Strategies, ", "))
	fs.Float64Var(&rf.max, "max", 0, "the highest rate (or clients) to try (0 = no bound)")
	fs.BoolVar(&rf.noEarly, "no-early-stop", false, "run every experiment for its full length, even when its outcome is certain")
	fs.BoolVar(&rf.probe, "probe", true, "by rate without --rate: first measure the store's capacity (the client pool back to back, closed model, one --duration) and start the search at half of it; --probe=false starts at 100 ops/s")
	fs.IntVar(&rf.votes, "votes", rating.DefaultVotes, "a target that fails is run again until a majority of up to this many runs agrees (odd; 1 = no repeats); a pass is taken at once")
	fs.IntVar(&rf.minTail, "min-tail", rating.DefaultMinTail, "by rate, each experiment lasts until this many operations lie beyond the SLA's percentile (p95: 20× as many in all; at most 10× --duration); 0 = no minimum")
	fs.BoolVar(&rf.settle, "settle", true, "after the first load and each reset, wait until the store has finished its background work (compactions, vacuum) before the experiment; --settle=false skips it")
	fs.DurationVar(&rf.steadiness, "steadiness", 5*time.Second, "first measure this long how steady this machine's speed is (stored, and a warning when less steady than the precision); 0 = skip")
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
	if err := pinSelf(f.cpus); err != nil {
		return err
	}
	if len(pos) == 1 && isExperimentFile(pos[0]) {
		return rateFileCmd(ctx, e, pos[0], rf, f, sets, *dry)
	}
	if len(pos) > 0 {
		return usagef("dbrig rate: unexpected argument %q (an experiment file ends in .yaml; properties are given as -p key=value)", pos[0])
	}
	if len(sets) > 0 || *dry {
		return usagef("dbrig rate: --set and --dry-run need an experiment file: dbrig rate FILE.yaml")
	}
	opts, err := rf.options(f, append([]string{"rate"}, args...))
	if err != nil {
		return err
	}
	return runRating(ctx, e, f, opts)
}

// isExperimentFile: a positional argument of rate names an experiment file.
func isExperimentFile(p string) bool {
	return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")
}

// runRating performs a rating and prints it.
func runRating(ctx context.Context, e *env, f *runFlags, opts rating.Options) error {
	hooks := rating.Hooks{Warn: func(err error) { fmt.Fprintf(e.stderr, "warning: %v\n", err) }}
	if !f.quiet {
		hooks.Started = func(id int64, store string) {
			fmt.Fprintf(e.stderr, "rating %d: SLA %s, by %s, reset %s; results in %s\n", id, opts.SLA, opts.By, opts.Reset, store)
		}
		hooks.Step = func(s rating.Step) {
			if s.Kind == rating.KindProbe {
				fmt.Fprintf(e.stderr, "  probe %.0f clients, closed: %s ops/s (run %d, %.1fs); the search starts at half of it\n", s.Target, format.Rate(s.Achieved), s.RunID, s.Seconds)
				return
			}
			verdict := "pass"
			if !s.Pass {
				verdict = "FAIL"
			}
			if s.StoppedEarly {
				verdict = "FAIL, stopped early"
			}
			if s.Vote > 0 {
				verdict += fmt.Sprintf(" (vote %d)", s.Vote)
			}
			var terms []string
			for _, t := range s.Terms {
				terms = append(terms, t.String())
			}
			fmt.Fprintf(e.stderr, "  %s %s: %s — %s (run %d, %.1fs)\n", s.Kind, targetText(opts.By, s.Target), verdict, strings.Join(terms, ", "), s.RunID, s.Seconds)
		}
	}
	r, rateErr := rating.Rate(ctx, opts, hooks)
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

func targetText(by string, x float64) string {
	if by == rating.ByClients {
		return fmt.Sprintf("%.0f clients", x)
	}
	return fmt.Sprintf("%.6g ops/s", x)
}

// options checks rate's own flags and builds the rating's options; the
// search starts at --rate (or --clients with --by clients).
func (rf *rateFlags) options(f *runFlags, args []string) (rating.Options, error) {
	var o rating.Options
	if len(rf.sla) == 0 {
		return o, usagef("dbrig rate: expected an SLA, e.g. --sla 'p95<100ms' (repeatable)")
	}
	s, err := sla.Parse(rf.sla...)
	if err != nil {
		return o, &experiment.InputError{Err: err}
	}
	prec, err := parsePrecision(rf.precision)
	if err != nil {
		return o, err
	}
	if rf.by == rating.ByClients && (f.set["rate"] || f.set["target"]) {
		return o, usagef("--by clients searches the number of clients (closed model): remove --rate")
	}
	if f.set["probe"] && rf.probe {
		switch {
		case rf.by == rating.ByClients:
			return o, usagef("--probe measures the capacity a search by rate starts from; --by clients starts at --clients (1 without it): remove --probe")
		case f.set["rate"] || f.set["target"]:
			return o, usagef("--probe measures the capacity the search starts from, and --rate gives the start: remove one")
		}
	}
	if f.set["hdrlog"] {
		return o, usagef("--hdrlog: a rating runs several experiments; use dbrig run at the answer for a log")
	}
	o = rating.Options{SLA: s, By: rf.by, Precision: prec, SLADuration: rf.slaDuration, Max: rf.max, Reset: rf.reset, NoEarlyStop: rf.noEarly,
		NoProbe: !rf.probe, Votes: rf.votes, MinTail: rf.minTail, NoSettle: !rf.settle, Steadiness: rf.steadiness}
	if rf.votes < 1 || rf.votes%2 == 0 {
		return o, usagef("--votes %d: expected an odd number of runs (1: every first verdict is final, 3: a failure must repeat)", rf.votes)
	}
	if rf.minTail < 0 {
		return o, usagef("--min-tail %d: expected a number of operations, 0 for no minimum", rf.minTail)
	}
	if rf.minTail == 0 {
		o.MinTail = -1
	}
	// Every experiment warms up (default: 1 s, at most half of it) so that
	// connections opened by its fresh driver are not in the SLA's sample;
	// --warmup 0 turns that off.
	if f.set["warmup"] && f.warmup == 0 {
		o.Warmup = -1
	}
	// --rate and --clients say where the search starts; --duration is each
	// search experiment's length (default: a quarter of the SLA's, at least 2 s).
	base := *f
	base.set = map[string]bool{}
	for k, v := range f.set {
		base.set[k] = v
	}
	switch rf.by {
	case rating.ByClients:
		if f.set["clients"] || f.set["threads"] {
			o.Start = float64(f.clients)
		}
		delete(base.set, "clients")
		delete(base.set, "threads")
	default:
		if f.set["rate"] || f.set["target"] {
			o.Start = f.rate
		}
		delete(base.set, "rate")
		delete(base.set, "target")
	}
	o.Step = rf.slaDuration / 4
	if o.Step < 2*time.Second {
		o.Step = min(2*time.Second, rf.slaDuration)
	}
	if f.set["duration"] {
		o.Step = f.duration
		delete(base.set, "duration")
	}
	o.Base = base.options(true, args)
	return o, nil
}

// parsePrecision reads "5%" or "0.05".
func parsePrecision(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
	if err != nil {
		return 0, usagef("--precision %q: expected a percentage such as 5%% (or a fraction such as 0.05)", s)
	}
	if pct {
		v /= 100
	}
	if !(v > 0 && v <= 0.5) {
		return 0, usagef("--precision %q: expected more than 0%% and at most 50%%", s)
	}
	return v, nil
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
	if err := report.Rating(out, stored); err != nil {
		return err
	}
	fmt.Fprintf(out, "rule: %s\n", r.Rule)
	if r.Time.SettleS > 0 {
		fmt.Fprintf(out, "settle: %.1f s of the load and reset time (ζ, ω·ν) was the store settling\n", r.Time.SettleS)
	}
	if r.Left != "" {
		fmt.Fprintf(out, "data set: %s at the end (as loaded: a next rating can use --skip-load)\n", r.Left)
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
		var protected []outfile.Path
		if f, ok := results.File(*storeDSN); ok {
			protected = append(protected, outfile.Path{Role: "results store", Path: f})
		}
		if err := outfile.CheckForce([]outfile.Path{{Role: "--png", Path: *png}}, protected, *force); err != nil {
			return &experiment.InputError{Err: err}
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
	r, err := store.GetRating(ctx, id)
	if errors.Is(err, results.ErrNoRating) {
		return &experiment.InputError{Err: err}
	}
	if err != nil {
		return err
	}
	if err := report.Rating(e.stdout, r); err != nil {
		return err
	}
	if *png == "" {
		return nil
	}
	f, err := outfile.Create(*png)
	if err != nil {
		return fmt.Errorf("--png %s: %w", *png, err)
	}
	tag := outfile.TagPNG(f) // so that a later --png recognises it as dbrig's
	if err := errors.Join(report.RatingPNG(tag, r), tag.Flush()); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("--png %s: %w", *png, err)
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
	var protected []outfile.Path
	if f, ok := results.File(storeDSN); ok {
		protected = append(protected, outfile.Path{Role: "results store", Path: f})
	}
	if err := outfile.CheckForce([]outfile.Path{{Role: "-o", Path: out}}, protected, force); err != nil {
		return &experiment.InputError{Err: err}
	}
	store, err := results.OpenExisting(ctx, storeDSN)
	if err != nil {
		return err
	}
	defer store.Close()
	r, err := store.GetRating(ctx, id)
	if errors.Is(err, results.ErrNoRating) {
		return &experiment.InputError{Err: err}
	}
	if err != nil {
		return err
	}
	f, err := outfile.Create(out)
	if err != nil {
		return err
	}
	defer f.Abort() // removes only the temporary file
	if err := report.RatingHTML(f, r); err != nil {
		return fmt.Errorf("report rating %d: %w", id, err)
	}
	if err := f.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", out)
	return nil
}

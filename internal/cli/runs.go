package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/outfile"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
)

func registry() driver.Registry { return all.Registry() }

// runsCmd: dbrig runs list | show ID | compare ID ID | export ID….
func runsCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig runs", e.stderr)
	storeDSN := fs.String("store", "", "results database (default: per-user data path)")
	var f results.Filter
	fs.StringVar(&f.System, "system", "", "list: only runs of this system")
	fs.StringVar(&f.Workload, "workload", "", "list: only runs of this workload")
	fs.StringVar(&f.Status, "status", "", "list: only runs with this status (running, done, failed, interrupted, stopped, abandoned)")
	ratingSteps := fs.Bool("rating-steps", false, "list: also the experiments of ratings (dbrig rate), hidden by default unless --tag is given")
	fs.StringVar(&f.Tag, "tag", "", "list: only runs with this tag")
	since := fs.Duration("since", 0, "list: only runs started within this long (e.g. 24h)")
	fs.IntVar(&f.Limit, "limit", 50, "list: at most this many runs, newest first")
	asJSON := fs.Bool("json", false, "show: print the run as JSON (a distributed run's per-worker figures included)")
	var ex exportFlags
	fs.StringVar(&ex.format, "format", "csv", "export: csv or json")
	fs.StringVar(&ex.what, "what", "summaries", "export: summaries, intervals, impacts or steps (steps: of rating:ID)")
	fs.StringVar(&ex.out, "o", "", "export: write to this file instead of stdout")
	fs.BoolVar(&ex.force, "force", false, "export: -o may replace an existing file dbrig did not write (never a database)")
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if len(pos) == 0 {
		return usagef("dbrig runs: expected list, show ID, compare ID ID or export ID…")
	}
	switch f.Status {
	case "", "running", "done", "failed", "interrupted", "stopped", "abandoned":
	default:
		return usagef("--status %q: expected running, done, failed, interrupted, stopped or abandoned", f.Status)
	}
	f.NoRatingSteps = !*ratingSteps && f.Tag == "" // --tag rating:3 asks for them
	if *since > 0 {
		f.Since = time.Now().Add(-*since)
	}
	if pos[0] == "export" {
		if err := ex.check(pos[1:], *storeDSN); err != nil {
			return err
		}
	}
	store, err := results.OpenExisting(ctx, *storeDSN)
	if err != nil {
		return err
	}
	defer store.Close()
	switch sub, ids := pos[0], pos[1:]; sub {
	case "list", "ls":
		rows, err := store.ListRuns(ctx, f)
		if err != nil {
			return err
		}
		report.RunList(e.stdout, rows)
		return nil
	case "show":
		if len(ids) != 1 {
			return usagef("dbrig runs show: expected one run id")
		}
		d, err := fetchRun(ctx, store, ids[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return report.StoredRunJSON(ctx, e.stdout, store, d.ID)
		}
		return report.StoredRunShow(ctx, e.stdout, store, d.ID)
	case "compare":
		if len(ids) != 2 {
			return usagef("dbrig runs compare: expected two run ids (baseline first)")
		}
		var runs [2]analysis.Run
		for i, id := range ids {
			d, err := fetchRun(ctx, store, id)
			if err != nil {
				return err
			}
			ivs, err := store.Intervals(ctx, d.ID)
			if err != nil {
				return err
			}
			runs[i] = analysis.Run{Detail: d, Intervals: ivs}
		}
		return report.RunCompare(e.stdout, runs[0], runs[1])
	case "export":
		return ex.run(ctx, e, store, ids)
	default:
		return usagef("dbrig runs %s: unknown subcommand (expected list, show, compare or export)", sub)
	}
}

func fetchRun(ctx context.Context, store *results.Store, arg string) (*results.RunDetail, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return nil, usagef("run id %q: expected a positive number (see dbrig runs list)", arg)
	}
	return store.Run(ctx, id)
}

// exportFlags are the flags of dbrig runs export ID… [--format csv|json]
// [--what summaries|intervals|impacts|steps] [-o FILE].
type exportFlags struct {
	format, what, out string
	force             bool
}

// check refuses bad input before the store is opened (exit 2).
func (x *exportFlags) check(args []string, storeDSN string) error {
	if err := report.CheckExport(x.format, x.what); err != nil {
		return usagef("dbrig runs export: %v", err)
	}
	if len(args) == 0 {
		return usagef("dbrig runs export: expected one or more run ids (or rating:ID with --what steps)")
	}
	for _, a := range args {
		if strings.HasPrefix(a, "rating:") != (x.what == "steps") {
			return usagef("dbrig runs export %s: --what steps exports ratings (rating:ID, see dbrig rate list); the others runs (ID, see dbrig runs list)", a)
		}
	}
	if x.out != "" {
		return checkOut("-o", x.out, storeDSN, x.force) // report.go
	}
	return nil
}

func (x *exportFlags) run(ctx context.Context, e *env, store *results.Store, args []string) error {
	ids := make([]int64, len(args))
	for i, a := range args {
		id, err := strconv.ParseInt(strings.TrimPrefix(a, "rating:"), 10, 64)
		if err != nil || id <= 0 {
			return usagef("dbrig runs export: id %q: expected a positive number", a)
		}
		ids[i] = id
	}
	in, err := report.ReadExport(ctx, store, x.what, ids)
	if err != nil {
		return err
	}
	if x.out == "" {
		return report.Export(e.stdout, in, x.format, x.what)
	}
	return outfile.Write(x.out, "", func(w io.Writer) error {
		return outfile.Prefix("runs export: ", report.Export(w, in, x.format, x.what))
	})
}

package cli

import (
	"context"
	"errors"
	"flag"
	"strconv"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
)

func registry() driver.Registry { return all.Registry() }

// runsCmd: dbrig runs list | show ID | compare ID ID.
func runsCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig runs", e.stderr)
	storeDSN := fs.String("store", "", "results database (default: per-user data path)")
	var f results.Filter
	fs.StringVar(&f.System, "system", "", "list: only runs of this system")
	fs.StringVar(&f.Workload, "workload", "", "list: only runs of this workload")
	fs.StringVar(&f.Status, "status", "", "list: only runs with this status (running, done, failed, interrupted)")
	fs.StringVar(&f.Tag, "tag", "", "list: only runs with this tag")
	since := fs.Duration("since", 0, "list: only runs started within this long (e.g. 24h)")
	fs.IntVar(&f.Limit, "limit", 50, "list: at most this many runs, newest first")
	asJSON := fs.Bool("json", false, "show: print the run as JSON (a distributed run's per-worker figures included)")
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if len(pos) == 0 {
		return usagef("dbrig runs: expected list, show ID or compare ID ID")
	}
	switch f.Status {
	case "", "running", "done", "failed", "interrupted", "abandoned":
	default:
		return usagef("--status %q: expected running, done, failed, interrupted or abandoned", f.Status)
	}
	if *since > 0 {
		f.Since = time.Now().Add(-*since)
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
		a, err := fetchRun(ctx, store, ids[0])
		if err != nil {
			return err
		}
		b, err := fetchRun(ctx, store, ids[1])
		if err != nil {
			return err
		}
		report.RunCompare(e.stdout, a, b)
		return nil
	default:
		return usagef("dbrig runs %s: unknown subcommand (expected list, show or compare)", sub)
	}
}

func fetchRun(ctx context.Context, store *results.Store, arg string) (*results.RunDetail, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return nil, usagef("run id %q: expected a positive number (see dbrig runs list)", arg)
	}
	return store.Run(ctx, id)
}

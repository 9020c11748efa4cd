package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/outfile"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web"
)

// reportCmd: dbrig report RUN [RUN…] -o report.html [--png DIR]
func reportCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig report", e.stderr)
	storeDSN := fs.String("store", "", "results database (default: per-user data path)")
	out := fs.String("o", "", "write the self-contained HTML report to this file (default: report-RUN.html)")
	pngDir := fs.String("png", "", "also write every plot as a PNG file into this directory")
	force := fs.Bool("force", false, "-o and --png may replace existing files dbrig did not write (never a database)")
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if len(pos) == 0 {
		return usagef("dbrig report: expected one or more run ids (see dbrig runs list), or rating:ID (see dbrig rate list)")
	}
	if len(pos) == 1 && strings.HasPrefix(pos[0], "rating:") {
		return ratingReport(ctx, e, *storeDSN, strings.TrimPrefix(pos[0], "rating:"), *out, *force) // rate.go
	}
	ids := make([]int64, len(pos))
	for i, p := range pos {
		if ids[i], err = strconv.ParseInt(p, 10, 64); err != nil || ids[i] <= 0 {
			return usagef("run id %q: expected a positive number (see dbrig runs list)", p)
		}
	}
	if *out == "" {
		*out = "report-" + pos[0] + ".html"
	}
	if err := checkOut("-o", *out, *storeDSN, *force); err != nil {
		return err
	}
	if *pngDir != "" {
		if err := os.MkdirAll(*pngDir, 0o755); err != nil {
			return &experiment.InputError{Err: fmt.Errorf("--png %s: %w", *pngDir, err)}
		}
	}
	store, err := results.OpenExisting(ctx, *storeDSN)
	if err != nil {
		return err
	}
	defer store.Close()
	rep, err := report.Build(ctx, store, ids)
	if err != nil {
		return err
	}
	for _, png := range report.PNGPaths(*pngDir, rep) { // none without --png
		if err := checkOut("--png", png, *storeDSN, *force); err != nil {
			return err
		}
	}
	if err := outfile.Write(*out, "", func(w io.Writer) error { return outfile.Prefix("report: ", report.RenderHTML(w, rep)) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", *out)
	if *pngDir != "" {
		files, err := report.RenderPNGs(ctx, *pngDir, rep)
		if err != nil {
			return fmt.Errorf("png: %w", err)
		}
		for _, name := range files {
			fmt.Fprintf(e.stdout, "wrote %s\n", name)
		}
	}
	return nil
}

// serveCmd: dbrig serve [--addr 127.0.0.1:8080]
func serveCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig serve", e.stderr)
	storeDSN := fs.String("store", "", "results database (default: per-user data path)")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default: the dashboard has no login)")
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if len(pos) > 0 {
		return usagef("dbrig serve: unexpected argument %q", pos[0])
	}
	store, err := results.OpenExisting(ctx, *storeDSN)
	if err != nil {
		return err
	}
	defer store.Close()
	err = web.Serve(ctx, store, *addr, e.stderr)
	var le *web.ListenError
	if errors.As(err, &le) {
		return &experiment.InputError{Err: err}
	}
	return err
}

// checkOut refuses an output file (given with flag role) that would
// overwrite the results store storeDSN, or a file dbrig did not write
// (unless force), before anything runs (exit code 2).
func checkOut(role, path, storeDSN string, force bool) error {
	var protected []outfile.Path
	if f, ok := results.File(storeDSN); ok {
		protected = append(protected, outfile.Path{Role: "results store", Path: f})
	}
	if err := outfile.CheckForce([]outfile.Path{{Role: role, Path: path}}, protected, force); err != nil {
		return &experiment.InputError{Err: err}
	}
	return nil
}

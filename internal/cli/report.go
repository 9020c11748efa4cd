package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/internal/outfile"
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
	force := fs.Bool("force", false, "-o may replace an existing file dbrig did not write (never a database)")
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
	var protected []outfile.Path
	if f, ok := results.File(*storeDSN); ok {
		protected = append(protected, outfile.Path{Role: "results store", Path: f})
	}
	if err := outfile.CheckForce([]outfile.Path{{Role: "-o", Path: *out}}, protected, *force); err != nil {
		return &experiment.InputError{Err: err}
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
	f, err := outfile.Create(*out)
	if err != nil {
		return err
	}
	defer f.Abort() // removes only the temporary file, never *out
	if err := report.RenderHTML(f, rep); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := f.Commit(); err != nil {
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
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return &experiment.InputError{Err: fmt.Errorf("--addr %s: %w", *addr, err)}
	}
	if !isLoopback(ln.Addr()) {
		fmt.Fprintf(e.stderr, "warning: the dashboard listens on %s, reachable from other machines; it has no login (use 127.0.0.1:PORT to keep it local)\n", ln.Addr())
	}
	srv := &http.Server{Handler: web.HostCheck(web.NewServer(store), ln.Addr()), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "dbrig dashboard on http://%s (results: %s); Ctrl-C stops it\n", ln.Addr(), store.Name())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}

// isLoopback tells whether a listening address is reachable from this
// machine only.
func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

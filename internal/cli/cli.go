// Package cli implements dbrig's commands: it parses flags, calls the
// packages that do the work (experiment for runs, results for stored runs,
// report and web to show them) and prints. It holds no orchestration.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
)

// env is what every command gets: where to write, and the process's inputs.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

type command struct {
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

func commands() map[string]command {
	return map[string]command{
		"run":        {"load the data, run a workload, store and print the results", runCmd},
		"bench":      {"run an experiment file: every run of its matrix, stored (bench FILE.yaml [--dry-run] [--set k=v])", benchCmd},
		"cluster":    {"a local cluster that outlives the command (cluster up FILE.yaml|RECIPE | status | down | logs NODE)", clusterCmd},
		"rate":       {"find the highest rate (or clients) that meets an SLA: dbrig rate --sla 'p95<100ms' [run flags] | rate list | rate show ID", rateCmd},
		"load":       {"only load the data (for a store that keeps it, e.g. -p pebble.dir=DIR)", loadCmd},
		"validate":   {"check dbrig's measurements against the simulated store's known answer", validateCmd},
		"selftest":   {"what this machine lets dbrig measure: harness ceiling and dispatch precision (selftest [--json] [--soak 10m])", selftestCmd},
		"runs":       {"list, show, compare and export stored runs (runs list | show ID | compare ID ID | export ID… --format csv|json)", runsCmd},
		"check":      {"a CI regression gate: check NEW --baseline ID|tag:NAME|history:N [--fail-on 'throughput<-5%'] (exit 4 on a regression)", checkCmd},
		"report":     {"write a self-contained HTML report of runs (report ID [ID…] -o r.html [--png DIR])", reportCmd},
		"serve":      {"a read-only web dashboard over the results (serve [--addr 127.0.0.1:8080])", serveCmd},
		"drivers":    {"list the systems dbrig can drive, or one driver's properties (drivers [NAME])", driversCmd},
		"version":    {"print dbrig's version", versionCmd},
		"completion": {"a bash completion script: source <(dbrig completion bash)", completionCmd},
		"k8s":        {"a distributed run on Kubernetes: k8s manifests|run [FILE.yaml | run flags] --workers N --image IMG [--store postgres://…]", k8sCmd},
		"worker":     {"one worker of a distributed run: worker --coordinator http://HOST:PORT [--index I] (see run --workers)", workerCmd},
		"tpcc":       {"TPC-C's consistency checks on a loaded database (tpcc check --driver NAME -p KEY=VALUE…)", tpccCmd},
	}
}

// Main runs dbrig with args (without the program name) and returns the exit
// code: 0 success, 1 failure, 2 bad input, 3 a verdict failed, 4 dbrig
// check found a regression, 130 interrupted.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout, cmds)
		return 0
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "dbrig: unknown command %q\n\n", args[0])
		usage(stderr, cmds)
		return 2
	}
	err := cmd.run(ctx, e, args[1:])
	return exitCode(stderr, err)
}

func exitCode(stderr io.Writer, err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errInterrupted):
		if err == errInterrupted {
			fmt.Fprintln(stderr, "dbrig: interrupted; measured results were stored")
		} else {
			fmt.Fprintf(stderr, "dbrig: %v\n", err)
		}
		return 130
	case errors.Is(err, errVerdict):
		fmt.Fprintf(stderr, "dbrig: %v\n", err)
		return 3
	case errors.Is(err, errRegressed):
		fmt.Fprintf(stderr, "dbrig: %v\n", err)
		return 4
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "dbrig: %v\n", err)
		return 2
	case onlyMostlyFailed(err):
		fmt.Fprintf(stderr, "dbrig: %v\n", err)
		return 5
	default:
		fmt.Fprintf(stderr, "dbrig: %v\n", err)
		if experiment.IsInput(err) || errors.Is(err, results.ErrNoRun) || errors.Is(err, results.ErrNoRating) || errors.Is(err, results.ErrBadStore) {
			return 2
		}
		return 1
	}
}

var (
	errHelp        = errors.New("help requested")
	errInterrupted = errors.New("interrupted")
	// errVerdict: the runs completed and were stored, but a fault cost more
	// than the experiment's verdict allows (exit code 3, for CI gates).
	errVerdict = errors.New("verdict failed")
)

// onlyMostlyFailed tells whether every failure in err is a run whose
// operations mostly failed (measure.FailedError: exit code 5); any other
// failure joined with it makes the exit code 1.
func onlyMostlyFailed(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs := j.Unwrap()
		for _, e := range errs {
			if !onlyMostlyFailed(e) {
				return false
			}
		}
		return len(errs) > 0
	}
	if _, ok := err.(*measure.FailedError); ok {
		return true
	}
	if u := errors.Unwrap(err); u != nil {
		return onlyMostlyFailed(u)
	}
	return false
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "dbrig — database benchmarking workbench")
	fmt.Fprintln(w, "\nUsage: dbrig COMMAND [flags]   (dbrig COMMAND -h for its flags)")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nExample: dbrig run -P workloads/workloada --driver pebble --clients 4 --duration 30s")
}

func versionCmd(_ context.Context, e *env, _ []string) error {
	fmt.Fprintf(e.stdout, "dbrig %s\n", experiment.Version)
	return nil
}

// driversCmd: dbrig drivers [NAME] — the drivers, or one driver's
// properties, from the declarations the unknown-key check uses.
func driversCmd(_ context.Context, e *env, args []string) error {
	reg := registry()
	switch len(args) {
	case 0:
		report.Drivers(e.stdout, reg)
		return nil
	case 1:
		if strings.HasPrefix(args[0], "-") && strings.TrimLeft(args[0], "-") == "h" || strings.TrimLeft(args[0], "-") == "help" {
			fmt.Fprintln(e.stdout, "usage: dbrig drivers [NAME]: the drivers, or one driver's properties")
			return errHelp
		}
	default:
		return usagef("dbrig drivers: expected at most one driver name")
	}
	d, ok := reg[args[0]]
	if !ok {
		return &experiment.InputError{Err: fmt.Errorf("%w %q (expected one of: %s)", driver.ErrUnknownDriver, args[0], strings.Join(reg.Names(), ", "))}
	}
	report.Driver(e.stdout, args[0], d)
	return nil
}

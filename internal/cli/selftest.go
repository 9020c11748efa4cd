package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/run"
)

// selftestCmd: dbrig selftest — what this machine lets dbrig measure: the
// harness's own ceiling (closed model, null driver) and how punctually the
// open model starts operations at a few rates (dispatch lag, achieved rate).
// With --soak it runs the open model for a long time and prints the
// process's memory as it goes.
func selftestCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig selftest", e.stderr)
	per := fs.Duration("duration", 3*time.Second, "length of each case")
	ratesFlag := fs.String("rates", "1000,20000,100000", "open-model rates to check, ops/s, comma-separated")
	clients := fs.Int("clients", 16, "clients of the many-client ceiling case and the open model's pool")
	spin := fs.Duration("spin-wait", run.DefaultSpinWait, "busy-wait before each intended start (property spinwait; 0 = sleep only)")
	soak := fs.Duration("soak", 0, "instead: run the open model this long (e.g. 10m) and print RSS every --every")
	soakRate := fs.Float64("soak-rate", 50_000, "--soak: ops/s")
	every := fs.Duration("every", 10*time.Second, "--soak: how often to print memory")
	heapProf := fs.String("heap-profile", "", "--soak: also write a Go heap profile at every print, to PREFIX-<n>-<seconds>s.pprof, e.g. PREFIX-002-60.0s.pprof (go tool pprof -sample_index=inuse_space)")
	floorFlag := fs.Duration("floor", 2*time.Second, "how long each machine-floor thread (one sleeping, one spinning) runs; 0 = skip")
	steady := fs.Duration("steadiness", 5*time.Second, "how long to measure how steady this machine's speed is (work per 250ms window); 0 = skip")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return &usageError{msg: err.Error()}
	}
	rates, err := run.ParseRates(*ratesFlag)
	switch {
	case len(rest) > 0:
		return usagef("dbrig selftest: unexpected argument %q", rest[0])
	case err != nil:
		return usagef("dbrig selftest --rates: %v", err)
	case *per < 100*time.Millisecond:
		return usagef("dbrig selftest --duration %v: expected at least 100ms", *per)
	case *clients < 1 || *clients > run.MaxClients:
		return usagef("dbrig selftest --clients %d: expected 1 to %d", *clients, run.MaxClients)
	case *spin < 0 || *spin > time.Second:
		return usagef("dbrig selftest --spin-wait %v: expected 0 to 1s", *spin)
	case *soak < 0 || (*soak > 0 && *soak < time.Second):
		return usagef("dbrig selftest --soak %v: expected at least 1s", *soak)
	case *soakRate <= 0 || *every < 100*time.Millisecond:
		return usagef("dbrig selftest: --soak-rate must be > 0 and --every at least 100ms")
	case *floorFlag != 0 && *floorFlag < 100*time.Millisecond:
		return usagef("dbrig selftest --floor %v: expected 0 (skip) or at least 100ms", *floorFlag)
	case *steady != 0 && *steady < 4*run.SteadyWindow:
		return usagef("dbrig selftest --steadiness %v: expected 0 (skip) or at least %v", *steady, 4*run.SteadyWindow)
	case *heapProf != "" && *soak == 0:
		return usagef("dbrig selftest --heap-profile: only with --soak")
	}
	st := run.Selftest{Clients: *clients, SpinWait: *spin, Per: *per, Floor: *floorFlag, Steadiness: *steady, HeapProfile: *heapProf}
	if *soak > 0 {
		if !*asJSON {
			fmt.Fprintf(e.stderr, "selftest: soak, open model at %g ops/s, %d clients, %v; memory every %v\n", *soakRate, *clients, *soak, *every)
		}
		return st.Soak(ctx, *soak, *soakRate, *every, func(s run.SoakSample) {
			if *asJSON {
				_ = json.NewEncoder(e.stdout).Encode(s)
				return
			}
			report.SoakSample(e.stdout, s)
		}, func(err error) { fmt.Fprintf(e.stderr, "selftest: %v\n", err) })
	}
	res, err := st.Run(ctx, rates, func(s string) {
		if !*asJSON {
			fmt.Fprintln(e.stderr, s)
		}
	})
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	report.Selftest(e.stdout, res)
	return nil
}

package report

import (
	"fmt"
	"io"
	"time"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/run"
)

// Selftest prints dbrig selftest's result as tables.
func Selftest(w io.Writer, r *run.SelftestResult) {
	fmt.Fprintf(w, "harness ceiling (closed model, null driver, workload C; %d CPUs, %s)\n", r.CPUs, r.Version)
	fmt.Fprintf(w, "  %8s %14s %14s\n", "clients", "ops/s", "CPU/op")
	for _, c := range r.Ceiling {
		fmt.Fprintf(w, "  %8d %14s %11.0f ns\n", c.Clients, format.Int(int64(c.OpsPerS)), c.CPUPerOpNS)
	}
	fmt.Fprintf(w, "\ndispatch precision (open model, null driver: all of the response time is dbrig's; spin-wait %s)\n", r.SpinWait)
	fmt.Fprintf(w, "  %10s %12s %8s %9s %9s %9s %9s %8s %8s %9s %13s\n", "target/s", "achieved/s", "error", "lag p50", "lag p99", "resp p50", "resp p99", "dropped", "CPU", "spin win", "late sl/ld/sp")
	for _, p := range r.Open {
		us := format.MicrosInt
		fmt.Fprintf(w, "  %10s %12.1f %7.2f%% %9s %9s %9s %9s %8d %7.0f%% %9s %13s\n", format.Int(int64(p.Target)), p.Achieved, p.ErrorPct,
			us(p.LagP50), us(p.LagP99), us(p.RespP50), us(p.RespP99), p.Dropped, p.CPUPercent, us(p.SpinWindowMax),
			fmt.Sprintf("%d/%d/%d", p.LateAfterSleep, p.LateLead, p.LateAfterSpin))
	}
	fmt.Fprintln(w, "  (spin win: the widest spin window used; late sl/ld/sp: starts > 50µs late after a late sleep / a late lead / while spinning)")
	if f := r.Floor; f != nil {
		us := format.MicrosInt
		fmt.Fprintf(w, "\nmachine floor (no generator: how late this machine runs a thread that only waits, per %v)\n", time.Duration(f.IntervalUS)*time.Microsecond)
		fmt.Fprintf(w, "  %-22s %9s %9s %9s %9s %9s\n", "", "p50", "p99", "p99.9", "max", "samples")
		for _, c := range []struct {
			name string
			h    run.HiccupsUS
		}{{"sleep: woke late by", f.Sleep}, {"spin: stalled for", f.Spin}} {
			fmt.Fprintf(w, "  %-22s %9s %9s %9s %9s %9d\n", c.name, us(c.h.P50), us(c.h.P99), us(c.h.P999), us(c.h.Max), c.h.Samples)
		}
		fmt.Fprintf(w, "  %.2f%% of sleeps woke later than the spin wait (%s): those operations start late by the rest.\n", f.SleepsOverSpinWaitPct, r.SpinWait)
		fmt.Fprintln(w, "  A spinning thread's stalls are this machine's (VM, other processes): no generator starts operations more punctually.")
	}
	if m := r.Steadiness; m != nil {
		fmt.Fprintf(w, "\nmachine steadiness (work per %v window, %d windows each, one thread)\n", run.SteadyWindow, m.Windows)
		fmt.Fprintf(w, "  cache-bound (8 MB hash map): %s\n", m.Cache)
		fmt.Fprintf(w, "  register-only arithmetic:    %s\n", m.ALU)
		fmt.Fprintln(w, "  A store's capacity moves with the first (a database is cache-bound); a rating cannot be steadier than this machine.")
	}
	fmt.Fprintln(w, "\nLatencies far above these lag figures are the system's; near them, partly dbrig's (and this machine's).")
}

// SoakSample prints one memory sample of dbrig selftest --soak.
func SoakSample(w io.Writer, s run.SoakSample) {
	fmt.Fprintf(w, "%8.0fs  rss %8.1f MB  anon %7.1f MB  heap in use %7.1f MB  heap free %5.1f MB  stacks %5.1f MB  ops %s  dropped %s\n", s.ElapsedS, float64(s.RSSBytes)/(1<<20), float64(s.AnonBytes)/(1<<20), float64(s.HeapBytes)/(1<<20), float64(s.HeapFreeBytes)/(1<<20), float64(s.StackBytes)/(1<<20), format.Int(s.Ops), format.Int(s.Dropped))
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/machine"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload/ycsb"
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
	rates, err := parseRates(*ratesFlag)
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
	case *steady != 0 && *steady < 4*steadyWindow:
		return usagef("dbrig selftest --steadiness %v: expected 0 (skip) or at least %v", *steady, 4*steadyWindow)
	case *heapProf != "" && *soak == 0:
		return usagef("dbrig selftest --heap-profile: only with --soak")
	}
	st := selftest{clients: *clients, spin: *spin, per: *per, floor: *floorFlag, steady: *steady, heapProf: *heapProf}
	if *soak > 0 {
		return st.soak(ctx, e, *soak, *soakRate, *every, *asJSON)
	}
	res, err := st.run(ctx, rates, func(s string) {
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
	printSelftest(e.stdout, res)
	return nil
}

func parseRates(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || r <= 0 || r > 10_000_000 {
			return nil, fmt.Errorf("%q: expected ops/s > 0 (at most 1e7)", strings.TrimSpace(f))
		}
		out = append(out, r)
	}
	return out, nil
}

// SelftestResult is dbrig selftest's output (--json).
type SelftestResult struct {
	CPUs     int             `json:"cpus"`
	SpinWait string          `json:"spin_wait"`
	Ceiling  []CeilingCase   `json:"ceiling"`
	Open     []PrecisionCase `json:"open"`
	// Floor is the machine's own lateness, measured without dbrig's
	// generator; nil with --floor 0.
	Floor *FloorResult `json:"machine_floor,omitempty"`
	// Steadiness is how much this machine's speed varied (machine
	// package); nil with --steadiness 0.
	Steadiness *machine.Steadiness `json:"machine_steadiness,omitempty"`
	Version    string              `json:"go_version"`
}

// CeilingCase is the closed model against the null driver: the most
// operations per second the harness itself can issue and record.
type CeilingCase struct {
	Clients int     `json:"clients"`
	Ops     int64   `json:"ops"`
	OpsPerS float64 `json:"ops_per_s"`
	// CPUPerOpNS is the process's CPU time (user + system) per operation.
	CPUPerOpNS float64 `json:"cpu_per_op_ns"`
}

// PrecisionCase is the open model at one rate against the null driver:
// everything in its response time is the harness's.
type PrecisionCase struct {
	Target     float64 `json:"target_ops_per_s"`
	Achieved   float64 `json:"achieved_ops_per_s"`
	ErrorPct   float64 `json:"rate_error_pct"`
	Dropped    int64   `json:"dropped"`
	LagP50     int64   `json:"lag_p50_us"`
	LagP99     int64   `json:"lag_p99_us"`
	LagMax     int64   `json:"lag_max_us"`
	RespP50    int64   `json:"response_p50_us"`
	RespP99    int64   `json:"response_p99_us"`
	CPUPercent float64 `json:"cpu_percent"` // of one core, the whole process
	// SpinWindowMax is the widest spin window the open model used (µs;
	// SpinWait unless this machine's sleeps were late); LateAfterSleep,
	// LateLead and LateAfterSpin count the starts more than 50 µs late
	// because the sleep woke too late, the lead came too late, or while
	// the thread spun (from the phase's end event; README, "spinwait").
	SpinWindowMax  int64 `json:"spin_window_max_us"`
	LateAfterSleep int64 `json:"late_after_sleep"`
	LateLead       int64 `json:"late_lead"`
	LateAfterSpin  int64 `json:"late_after_spin"`
}

// FloorResult is the machine floor (run.Floor) in µs: a thread that only
// sleeps FloorInterval at a time, how late it wakes; one that only spins,
// its longest stall per FloorInterval.
type FloorResult struct {
	IntervalUS int64     `json:"interval_us"`
	Sleep      HiccupsUS `json:"sleep_late"`
	Spin       HiccupsUS `json:"spin_stall"`
	// SleepsOverSpinWaitPct is the share of sleeps later than the spin
	// wait: operations the spin cannot make punctual.
	SleepsOverSpinWaitPct float64 `json:"sleeps_over_spin_wait_pct"`
}

// HiccupsUS is a run.Hiccups in µs.
type HiccupsUS struct {
	Samples int   `json:"samples"`
	P50     int64 `json:"p50_us"`
	P99     int64 `json:"p99_us"`
	P999    int64 `json:"p99_9_us"`
	Max     int64 `json:"max_us"`
}

func hiccupsUS(h run.Hiccups) HiccupsUS {
	return HiccupsUS{Samples: h.Samples, P50: h.P50.Microseconds(), P99: h.P99.Microseconds(), P999: h.P999.Microseconds(), Max: h.Max.Microseconds()}
}

type selftest struct {
	clients  int
	spin     time.Duration
	per      time.Duration
	floor    time.Duration // each floor thread's time; 0: none
	steady   time.Duration // the steadiness measurement's time; 0: none
	heapProf string        // --soak: heap profile path prefix
}

// nullRun runs workload C against the null driver with cfg and returns the
// measure phase's summary and the CPU time the process used meanwhile.
func (st selftest) nullRun(ctx context.Context, cfg run.Config) (measure.Summary, time.Duration, error) {
	sum, _, cpu, err := st.nullRunEnd(ctx, cfg)
	return sum, cpu, err
}

// nullRunEnd is nullRun that also returns the measure phase's end event's
// detail (key=value pairs).
func (st selftest) nullRunEnd(ctx context.Context, cfg run.Config) (measure.Summary, map[string]string, time.Duration, error) {
	db, w, err := nullWorkload(ctx)
	if err != nil {
		return measure.Summary{}, nil, 0, err
	}
	defer db.Close()
	cfg.Seed = 1
	end := &endObserver{}
	before := cpuTime()
	sums, err := run.Run(ctx, db, w, cfg, end)
	used := cpuTime() - before
	if err != nil {
		return measure.Summary{}, nil, used, fmt.Errorf("selftest: %w", err)
	}
	return sums[len(sums)-1], end.detail, used, nil
}

// endObserver keeps the measure phase's end event's detail.
type endObserver struct{ detail map[string]string }

func (o *endObserver) Interval(measure.Interval) {}

func (o *endObserver) Event(ev run.Event) {
	if ev.Kind != run.EventPhaseEnd || ev.Name != measure.PhaseMeasure {
		return
	}
	o.detail = map[string]string{}
	for _, f := range strings.Fields(ev.Detail) {
		if k, v, ok := strings.Cut(f, "="); ok {
			o.detail[k] = v
		}
	}
}

// detailInt is detail[key] as a number, 0 when missing.
func detailInt(detail map[string]string, key string) int64 {
	n, _ := strconv.ParseInt(detail[key], 10, 64)
	return n
}

func (st selftest) run(ctx context.Context, rates []float64, progress func(string)) (*SelftestResult, error) {
	res := &SelftestResult{CPUs: runtime.GOMAXPROCS(0), SpinWait: st.spin.String(), Version: runtime.Version()}
	for _, n := range []int{1, st.clients} {
		progress(fmt.Sprintf("selftest: ceiling, closed model, %d client(s), %v", n, st.per))
		sum, cpu, err := st.nullRun(ctx, run.Config{Clients: n, Duration: st.per})
		if err != nil {
			return nil, err
		}
		c := CeilingCase{Clients: n, Ops: sum.Overall.Count, OpsPerS: sum.Overall.Throughput}
		if c.Ops > 0 {
			c.CPUPerOpNS = float64(cpu.Nanoseconds()) / float64(c.Ops)
		}
		res.Ceiling = append(res.Ceiling, c)
		if n == st.clients {
			break
		}
	}
	for _, r := range rates {
		progress(fmt.Sprintf("selftest: open model at %g ops/s, %d clients, spin-wait %v, %v", r, st.clients, st.spin, st.per))
		cfg := run.Config{Clients: st.clients, Model: run.Open{Rate: r}, Duration: st.per, SpinWait: st.spin}
		sum, detail, cpu, err := st.nullRunEnd(ctx, cfg)
		if err != nil {
			return nil, err
		}
		elapsed := sum.End.Sub(sum.Start)
		p := PrecisionCase{
			Target: r, Achieved: sum.Overall.Throughput, Dropped: sum.Dropped,
			LagP50: sum.Lag.P50, LagP99: sum.Lag.P99, LagMax: sum.Lag.Max,
			RespP50: sum.Overall.Response.P50, RespP99: sum.Overall.Response.P99,
			SpinWindowMax: detailInt(detail, "spin_window_max_us"), LateAfterSleep: detailInt(detail, "late_after_sleep"), LateLead: detailInt(detail, "late_lead"), LateAfterSpin: detailInt(detail, "late_after_spin"),
		}
		p.ErrorPct = 100 * (p.Achieved - r) / r
		if elapsed > 0 {
			p.CPUPercent = 100 * cpu.Seconds() / elapsed.Seconds()
		}
		res.Open = append(res.Open, p)
	}
	if st.floor > 0 {
		progress(fmt.Sprintf("selftest: machine floor, a thread sleeping %v at a time, then one spinning, %v each", floorInterval, st.floor))
		f, err := run.MeasureFloor(ctx, st.floor, floorInterval)
		if err != nil {
			return nil, fmt.Errorf("selftest: %w", err)
		}
		res.Floor = &FloorResult{IntervalUS: floorInterval.Microseconds(), Sleep: hiccupsUS(f.Sleep), Spin: hiccupsUS(f.Spin),
			SleepsOverSpinWaitPct: 100 * f.SleepLaterThan(st.spin)}
	}
	if st.steady > 0 {
		progress(fmt.Sprintf("selftest: machine steadiness, cache-bound and register-only work in %v windows, %v", steadyWindow, st.steady))
		m, err := machine.MeasureSteadiness(ctx, st.steady, steadyWindow)
		if err != nil {
			return nil, fmt.Errorf("selftest: %w", err)
		}
		res.Steadiness = &m
	}
	return res, nil
}

// steadyWindow is the steadiness measurement's window: about a search
// experiment's resolution of a store's capacity.
const steadyWindow = 250 * time.Millisecond

// floorInterval is the floor's sleep and window: the gap between
// arrivals at 1,000 ops/s, where every operation follows a sleep.
const floorInterval = time.Millisecond

func printSelftest(w io.Writer, r *SelftestResult) {
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
			h    HiccupsUS
		}{{"sleep: woke late by", f.Sleep}, {"spin: stalled for", f.Spin}} {
			fmt.Fprintf(w, "  %-22s %9s %9s %9s %9s %9d\n", c.name, us(c.h.P50), us(c.h.P99), us(c.h.P999), us(c.h.Max), c.h.Samples)
		}
		fmt.Fprintf(w, "  %.2f%% of sleeps woke later than the spin wait (%s): those operations start late by the rest.\n", f.SleepsOverSpinWaitPct, r.SpinWait)
		fmt.Fprintln(w, "  A spinning thread's stalls are this machine's (VM, other processes): no generator starts operations more punctually.")
	}
	if m := r.Steadiness; m != nil {
		fmt.Fprintf(w, "\nmachine steadiness (work per %v window, %d windows each, one thread)\n", steadyWindow, m.Windows)
		fmt.Fprintf(w, "  cache-bound (8 MB hash map): %s\n", m.Cache)
		fmt.Fprintf(w, "  register-only arithmetic:    %s\n", m.ALU)
		fmt.Fprintln(w, "  A store's capacity moves with the first (a database is cache-bound); a rating cannot be steadier than this machine.")
	}
	fmt.Fprintln(w, "\nLatencies far above these lag figures are the system's; near them, partly dbrig's (and this machine's).")
}

// SoakSample is one line of dbrig selftest --soak.
type SoakSample struct {
	ElapsedS  float64 `json:"elapsed_s"`
	RSSBytes  int64   `json:"rss_bytes"`
	AnonBytes int64   `json:"rss_anon_bytes"` // RSS less the mapped binary and files: heap, stacks
	HeapBytes uint64  `json:"heap_inuse_bytes"`
	// HeapFreeBytes is heap memory free but not yet returned to the OS
	// (still in RSS), StackBytes the goroutine stacks: where anonymous
	// RSS can grow while the heap in use does not.
	HeapFreeBytes uint64 `json:"heap_free_unreleased_bytes"`
	StackBytes    uint64 `json:"stack_inuse_bytes"`
	Ops           int64  `json:"ops"`
	Dropped       int64  `json:"dropped"`
}

// soak runs the open model for d at rate and prints the process's RSS and
// Go heap every every: they must level off, not grow with the run.
func (st selftest) soak(ctx context.Context, e *env, d time.Duration, rate float64, every time.Duration, asJSON bool) error {
	// The run reports every second as dbrig run does (its per-interval
	// work is part of what must stay flat); memory is sampled every every.
	iv := min(run.DefaultInterval, every)
	obs := &soakObserver{every: every, slack: iv / 2}
	cfg := run.Config{Clients: st.clients, Model: run.Open{Rate: rate}, Duration: d, SpinWait: st.spin, Interval: iv}
	start := time.Now()
	samples := 0
	obs.sample = func(ops, dropped int64) {
		defer func() { samples++ }()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		s := SoakSample{ElapsedS: time.Since(start).Seconds(), RSSBytes: rss(), AnonBytes: rssAnon(), HeapBytes: ms.HeapInuse, HeapFreeBytes: ms.HeapIdle - ms.HeapReleased, StackBytes: ms.StackInuse, Ops: ops, Dropped: dropped}
		if st.heapProf != "" {
			if err := writeHeapProfile(fmt.Sprintf("%s-%03d-%.1fs.pprof", st.heapProf, samples, s.ElapsedS)); err != nil {
				fmt.Fprintf(e.stderr, "selftest: %v\n", err)
			}
		}
		if asJSON {
			_ = json.NewEncoder(e.stdout).Encode(s)
			return
		}
		fmt.Fprintf(e.stdout, "%8.0fs  rss %8.1f MB  anon %7.1f MB  heap in use %7.1f MB  heap free %5.1f MB  stacks %5.1f MB  ops %s  dropped %s\n", s.ElapsedS, float64(s.RSSBytes)/(1<<20), float64(s.AnonBytes)/(1<<20), float64(s.HeapBytes)/(1<<20), float64(s.HeapFreeBytes)/(1<<20), float64(s.StackBytes)/(1<<20), format.Int(s.Ops), format.Int(s.Dropped))
	}
	if !asJSON {
		fmt.Fprintf(e.stderr, "selftest: soak, open model at %g ops/s, %d clients, %v; memory every %v\n", rate, st.clients, d, every)
	}
	obs.sample(0, 0)
	db, w, err := nullWorkload(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := run.Run(ctx, db, w, cfg, obs); err != nil {
		return fmt.Errorf("selftest --soak: %w", err)
	}
	return nil
}

// nullWorkload is the null driver and YCSB workload C over 1,000 keys.
func nullWorkload(ctx context.Context) (driver.DB, *ycsb.Workload, error) {
	props := spec.NewProps()
	wl, _ := ycsb.Builtin("workloadc")
	if err := props.Load("workloadc (built-in)", bytes.NewReader(wl)); err != nil {
		return nil, nil, fmt.Errorf("selftest: %w", err)
	}
	props.Set("recordcount", "1000", spec.Source{Flag: "selftest"})
	w, err := ycsb.New(props)
	if err != nil {
		return nil, nil, fmt.Errorf("selftest: %w", err)
	}
	db, err := registry().Open(ctx, all.Null, driver.Config{Props: props})
	if err != nil {
		return nil, nil, fmt.Errorf("selftest: %w", err)
	}
	return db, w, nil
}

type soakObserver struct {
	ops, dropped int64
	sample       func(ops, dropped int64)
	every, slack time.Duration // sample when an interval ends within slack of every k·every
	start        time.Time     // of the measure phase
	next         time.Duration // the next sample's offset from start
}

func (o *soakObserver) Interval(iv measure.Interval) {
	for _, op := range iv.Ops {
		o.ops += op.Count
	}
	o.dropped += iv.Dropped
	if iv.Phase != measure.PhaseMeasure {
		return
	}
	if o.start.IsZero() {
		o.start, o.next = iv.Start, o.every
	}
	if iv.End.Sub(o.start) >= o.next-o.slack {
		o.sample(o.ops, o.dropped)
		for o.next-o.slack <= iv.End.Sub(o.start) {
			o.next += o.every
		}
	}
}

func (o *soakObserver) Event(run.Event) {}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// writeHeapProfile writes the Go heap profile (as of the last GC) to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("heap profile %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("heap profile %s: %w", path, err)
	}
	return nil
}

// rssAnon is the anonymous part of the resident set (RssAnon of
// /proc/self/status: heap, stacks; not the pages of the mapped executable,
// which are most of a fresh process's RSS); 0 where /proc is missing.
func rssAnon() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			f := strings.Fields(v) // "1234 kB"
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}

// rss is the process's resident set size (0 where /proc is missing).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

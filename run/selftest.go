package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/null"
	"github.com/dbrig/dbrig/machine"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload/ycsb"
)

// dbrig selftest: what this machine lets dbrig measure. The harness's own
// ceiling (closed model, null driver), how punctually the open model starts
// operations at a few rates (dispatch lag, achieved rate), the machine
// floor (MeasureFloor) and its steadiness; or, as a soak, the process's
// memory over a long open-model run.

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
	// the thread spun (from the phase's end event; docs/reference/latency.md, "spinwait").
	SpinWindowMax  int64 `json:"spin_window_max_us"`
	LateAfterSleep int64 `json:"late_after_sleep"`
	LateLead       int64 `json:"late_lead"`
	LateAfterSpin  int64 `json:"late_after_spin"`
}

// FloorResult is the machine floor (Floor) in µs: a thread that only
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

// HiccupsUS is a Hiccups in µs.
type HiccupsUS struct {
	Samples int   `json:"samples"`
	P50     int64 `json:"p50_us"`
	P99     int64 `json:"p99_us"`
	P999    int64 `json:"p99_9_us"`
	Max     int64 `json:"max_us"`
}

func hiccupsUS(h Hiccups) HiccupsUS {
	return HiccupsUS{Samples: h.Samples, P50: h.P50.Microseconds(), P99: h.P99.Microseconds(), P999: h.P999.Microseconds(), Max: h.Max.Microseconds()}
}

// Selftest says what dbrig selftest measures and how long.
type Selftest struct {
	Clients     int           // the many-client ceiling case's, and the open model's pool
	SpinWait    time.Duration // the open model's busy-wait before each intended start
	Per         time.Duration // each case's length
	Floor       time.Duration // each floor thread's time; 0: none
	Steadiness  time.Duration // the steadiness measurement's time; 0: none
	HeapProfile string        // Soak: heap profile path prefix ("": none)
}

// nullRun runs workload C against the null driver with cfg and returns the
// measure phase's summary and the CPU time the process used meanwhile.
func (st Selftest) nullRun(ctx context.Context, cfg Config) (measure.Summary, time.Duration, error) {
	sum, _, cpu, err := st.nullRunEnd(ctx, cfg)
	return sum, cpu, err
}

// nullRunEnd is nullRun that also returns the measure phase's end event's
// detail (key=value pairs).
func (st Selftest) nullRunEnd(ctx context.Context, cfg Config) (measure.Summary, map[string]string, time.Duration, error) {
	db, w, err := nullWorkload(ctx)
	if err != nil {
		return measure.Summary{}, nil, 0, err
	}
	defer db.Close()
	cfg.Seed = 1
	end := &endObserver{}
	before := cpuTime()
	sums, err := Run(ctx, db, w, cfg, end)
	used := cpuTime() - before
	if err != nil {
		return measure.Summary{}, nil, used, fmt.Errorf("selftest: %w", err)
	}
	return sums[len(sums)-1], end.detail, used, nil
}

// endObserver keeps the measure phase's end event's detail.
type endObserver struct{ detail map[string]string }

func (o *endObserver) Interval(measure.Interval) {}

func (o *endObserver) Event(ev Event) {
	if ev.Kind != EventPhaseEnd || ev.Name != measure.PhaseMeasure {
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

// Run measures the harness's ceiling (closed model, 1 and Clients
// clients), the open model's punctuality at each of rates, and, when asked,
// the machine floor and steadiness. progress is told what starts.
func (st Selftest) Run(ctx context.Context, rates []float64, progress func(string)) (*SelftestResult, error) {
	res := &SelftestResult{CPUs: runtime.GOMAXPROCS(0), SpinWait: st.SpinWait.String(), Version: runtime.Version()}
	for _, n := range []int{1, st.Clients} {
		progress(fmt.Sprintf("selftest: ceiling, closed model, %d client(s), %v", n, st.Per))
		sum, cpu, err := st.nullRun(ctx, Config{Clients: n, Duration: st.Per})
		if err != nil {
			return nil, err
		}
		c := CeilingCase{Clients: n, Ops: sum.Overall.Count, OpsPerS: sum.Overall.Throughput}
		if c.Ops > 0 {
			c.CPUPerOpNS = float64(cpu.Nanoseconds()) / float64(c.Ops)
		}
		res.Ceiling = append(res.Ceiling, c)
		if n == st.Clients {
			break
		}
	}
	for _, r := range rates {
		progress(fmt.Sprintf("selftest: open model at %g ops/s, %d clients, spin-wait %v, %v", r, st.Clients, st.SpinWait, st.Per))
		cfg := Config{Clients: st.Clients, Model: Open{Rate: r}, Duration: st.Per, SpinWait: st.SpinWait}
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
	if st.Floor > 0 {
		progress(fmt.Sprintf("selftest: machine floor, a thread sleeping %v at a time, then one spinning, %v each", FloorInterval, st.Floor))
		f, err := MeasureFloor(ctx, st.Floor, FloorInterval)
		if err != nil {
			return nil, fmt.Errorf("selftest: %w", err)
		}
		res.Floor = &FloorResult{IntervalUS: FloorInterval.Microseconds(), Sleep: hiccupsUS(f.Sleep), Spin: hiccupsUS(f.Spin),
			SleepsOverSpinWaitPct: 100 * f.SleepLaterThan(st.SpinWait)}
	}
	if st.Steadiness > 0 {
		progress(fmt.Sprintf("selftest: machine steadiness, cache-bound and register-only work in %v windows, %v", SteadyWindow, st.Steadiness))
		m, err := machine.MeasureSteadiness(ctx, st.Steadiness, SteadyWindow)
		if err != nil {
			return nil, fmt.Errorf("selftest: %w", err)
		}
		res.Steadiness = &m
	}
	return res, nil
}

// SteadyWindow is the steadiness measurement's window: about a search
// experiment's resolution of a store's capacity.
const SteadyWindow = 250 * time.Millisecond

// FloorInterval is the floor's sleep and window: the gap between
// arrivals at 1,000 ops/s, where every operation follows a sleep.
const FloorInterval = time.Millisecond

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

// Soak runs the open model for d at rate and samples the process's RSS and
// Go heap every every (and at the start), handing each sample to sample:
// they must level off, not grow with the run. With HeapProfile, each
// sample also writes a heap profile; a failure to is told to warn.
func (st Selftest) Soak(ctx context.Context, d time.Duration, rate float64, every time.Duration, sample func(SoakSample), warn func(error)) error {
	// The run reports every second as dbrig run does (its per-interval
	// work is part of what must stay flat); memory is sampled every every.
	iv := min(DefaultInterval, every)
	obs := &soakObserver{every: every, slack: iv / 2}
	cfg := Config{Clients: st.Clients, Model: Open{Rate: rate}, Duration: d, SpinWait: st.SpinWait, Interval: iv}
	start := time.Now()
	samples := 0
	obs.sample = func(ops, dropped int64) {
		defer func() { samples++ }()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		s := SoakSample{ElapsedS: time.Since(start).Seconds(), RSSBytes: rss(), AnonBytes: rssAnon(), HeapBytes: ms.HeapInuse, HeapFreeBytes: ms.HeapIdle - ms.HeapReleased, StackBytes: ms.StackInuse, Ops: ops, Dropped: dropped}
		if st.HeapProfile != "" {
			if err := writeHeapProfile(fmt.Sprintf("%s-%03d-%.1fs.pprof", st.HeapProfile, samples, s.ElapsedS)); err != nil {
				warn(err)
			}
		}
		sample(s)
	}
	obs.sample(0, 0)
	db, w, err := nullWorkload(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := Run(ctx, db, w, cfg, obs); err != nil {
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
	db, err := null.Open(ctx, driver.Config{Props: props})
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

func (o *soakObserver) Event(Event) {}

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

// ParseRates reads selftest's open-model rates: ops/s, comma-separated.
func ParseRates(s string) ([]float64, error) {
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

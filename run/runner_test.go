package run

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/measure"
)

// fast returns a config for quick tests: short intervals and grace.
func fast(c Config) Config {
	if c.Interval == 0 {
		c.Interval = 50 * time.Millisecond
	}
	if c.Grace == 0 {
		c.Grace = 200 * time.Millisecond
	}
	return c
}

// modelAt returns the named model: closed paced at closedRate (0: as fast
// as possible) or open at openRate.
func modelAt(name string, closedRate, openRate float64) Model {
	if name == OpenName {
		return Open{Rate: openRate}
	}
	return Closed{Rate: closedRate}
}

func measureSummary(t *testing.T, sums []measure.Summary) measure.Summary {
	t.Helper()
	for _, s := range sums {
		if s.Phase == measure.PhaseMeasure {
			return s
		}
	}
	t.Fatalf("no measure summary in %d summaries", len(sums))
	return measure.Summary{}
}

// countAtLeast counts the values ≥ v (µs) in h.
func countAtLeast(h *hdr.Histogram, v int64) int64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.From >= v {
			n += b.Count
		}
	}
	return n
}

func TestConfigErrors(t *testing.T) {
	ok := Config{Clients: 1, Operations: 10}
	cases := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"no clients", func(c *Config) { c.Clients = 0 }, "clients = 0"},
		{"no bound", func(c *Config) { c.Operations = 0 }, "needs a bound"},
		{"open without rate", func(c *Config) { c.Model = Open{} }, "open model needs a target rate"},
		{"negative rate", func(c *Config) { c.Model = Closed{Rate: -1} }, "rate = -1"},
		{"think with rate", func(c *Config) { c.Model = Closed{Rate: 10, ThinkTime: time.Millisecond} }, "think time"},
		{"negative duration", func(c *Config) { c.Duration = -time.Second }, "duration = -1s"},
		{"negative backlog", func(c *Config) { c.Model = Open{Rate: 10, MaxBacklog: -1} }, "max backlog"},
		{"too many clients", func(c *Config) { c.Clients = MaxClients + 1 }, "at most 100000"},
		{"tiny interval", func(c *Config) { c.Interval = time.Millisecond }, "interval = 1ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.mod(&c)
			_, err := Run(context.Background(), &fakeDB{}, &fakeWorkload{}, c, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	if _, err := Load(context.Background(), &fakeDB{}, &fakeWorkload{}, Config{}, nil); err == nil || !strings.Contains(err.Error(), "clients") {
		t.Errorf("Load with zero clients: %v", err)
	}
}

func TestOperationsBoundIsExact(t *testing.T) {
	for _, clients := range []int{1, 3, 7} {
		for _, model := range []string{ClosedName, OpenName} {
			db := &fakeDB{}
			obs := &recorder{}
			cfg := fast(Config{Clients: clients, Model: modelAt(model, 0, 20000), Operations: 1000})
			sums, err := Run(context.Background(), db, &fakeWorkload{}, cfg, obs)
			if err != nil {
				t.Fatal(err)
			}
			sum := measureSummary(t, sums)
			count, dropped := obs.totals(measure.PhaseMeasure)
			// Closed: exactly 1000 performed. Open: exactly 1000 scheduled,
			// each performed or (reported as) dropped.
			if db.calls.Load()+sum.Dropped != 1000 || sum.Overall.Count != db.calls.Load() || count != sum.Overall.Count || dropped != sum.Dropped {
				t.Errorf("%s/%d clients: db calls %d, summary %d, intervals %d, dropped %d/%d; want 1000 in all",
					model, clients, db.calls.Load(), sum.Overall.Count, count, sum.Dropped, dropped)
			}
			if model == ClosedName && sum.Dropped != 0 {
				t.Errorf("closed model dropped %d", sum.Dropped)
			}
			if _, ok := obs.event(EventPhaseEnd, measure.PhaseMeasure); !ok {
				t.Errorf("no phase_end event: %+v", obs.events)
			}
		}
	}
}

func TestDurationBound(t *testing.T) {
	for _, model := range []string{ClosedName, OpenName} {
		t.Run(model, func(t *testing.T) {
			// Operations take 30 ms, so some are in flight at the deadline.
			db := &fakeDB{service: 30 * time.Millisecond, keepStart: true}
			obs := &recorder{}
			cfg := fast(Config{Clients: 4, Model: modelAt(model, 0, 200), Duration: 300 * time.Millisecond, Operations: 1 << 40})
			began := time.Now()
			sums, err := Run(context.Background(), db, &fakeWorkload{}, cfg, obs)
			if err != nil {
				t.Fatal(err)
			}
			sum := measureSummary(t, sums)
			start, _ := obs.event(EventPhaseStart, measure.PhaseMeasure)
			deadline := start.Time.Add(cfg.Duration)
			for _, s := range db.starts {
				if !s.Before(deadline) {
					t.Errorf("an operation started %v after the deadline", s.Sub(deadline))
				}
			}
			if took := time.Since(began); took < cfg.Duration {
				t.Errorf("run took %v, less than its duration", took)
			}
			// In-flight operations were awaited and recorded.
			if n := int64(len(db.starts)); sum.Overall.Count != n || n == 0 {
				t.Errorf("summary count %d, operations started %d", sum.Overall.Count, n)
			}
			if model == OpenName && sum.Overall.Count+sum.Dropped != 60 {
				// 200 ops/s for 0.3 s: 60 intended starts before the deadline.
				t.Errorf("performed %d + dropped %d, want 60 scheduled", sum.Overall.Count, sum.Dropped)
			}
		})
	}
}

func TestCountBoundBeforeDuration(t *testing.T) {
	db := &fakeDB{}
	began := time.Now()
	sums, err := Run(context.Background(), db, &fakeWorkload{}, fast(Config{Clients: 2, Operations: 50, Duration: time.Minute}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := measureSummary(t, sums).Overall.Count; c != 50 || time.Since(began) > 5*time.Second {
		t.Errorf("count %d in %v, want 50 quickly", c, time.Since(began))
	}
}

// stallCase runs 400 operations at 1000 ops/s in which the 100th stalls
// 200 ms, and returns the measure summary.
func stallCase(t *testing.T, model string, clients int) measure.Summary {
	t.Helper()
	db := &fakeDB{stallAt: 100, stall: 200 * time.Millisecond}
	cfg := Config{Clients: clients, Model: modelAt(model, 1000, 1000), Operations: 400}
	sums, err := Run(context.Background(), db, &fakeWorkload{}, fast(cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := measureSummary(t, sums)
	if sum.Overall.Count != 400 {
		t.Fatalf("count %d, want 400", sum.Overall.Count)
	}
	return sum
}

// With one client, the operations intended during the 200 ms stall (about
// 200 of them, at 1 ms intervals) wait behind it: the one intended t ms
// into the stall starts after about 200−t ms, so about 100 wait ≥ 100 ms.
// Their service time stays tiny: only the stalled one is served that slowly.
// A harness that measured from the actual start would report one slow op.
func TestStallShowsInResponseTimeNotServiceTime(t *testing.T) {
	for _, model := range []string{ClosedName, OpenName} {
		t.Run(model, func(t *testing.T) {
			sum := stallCase(t, model, 1)
			slowResp := countAtLeast(sum.Overall.ResponseHist, 100_000)
			slowSvc := countAtLeast(sum.Overall.ServiceHist, 100_000)
			// A busy machine can delay the harness too, adding a few.
			if slowResp < 90 || slowResp > 150 {
				t.Errorf("%d ops with response ≥ 100 ms, want about 100", slowResp)
			}
			if slowSvc != 1 {
				t.Errorf("%d ops with service ≥ 100 ms, want exactly the stalled one", slowSvc)
			}
			if sum.Overall.Response.P99 < 150_000 || sum.Overall.Service.P99 > 50_000 {
				t.Errorf("p99 response %d µs, service %d µs: want ≥ 150 ms and ≤ 50 ms", sum.Overall.Response.P99, sum.Overall.Service.P99)
			}
		})
	}
}

// In the open model with a pool of 4, the other workers keep serving during
// the stall: no operation but the stalled one waits.
func TestOpenPoolAbsorbsOneStall(t *testing.T) {
	sum := stallCase(t, OpenName, 4)
	if n := countAtLeast(sum.Overall.ResponseHist, 100_000); n != 1 {
		t.Errorf("%d ops with response ≥ 100 ms, want only the stalled one", n)
	}
}

// releaseObserver releases the blocked DB once the intervals report at
// least want dropped operations (or after a timeout, and the test fails).
type releaseObserver struct {
	recorder
	want    int64
	dropped int64
	release func()
}

func (o *releaseObserver) Interval(iv measure.Interval) {
	o.recorder.Interval(iv)
	if o.dropped += iv.Dropped; o.dropped >= o.want {
		o.release()
	}
}

func TestOpenDropsWhenBacklogFull(t *testing.T) {
	block := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(block) }) }
	defer time.AfterFunc(5*time.Second, release).Stop()
	db := &fakeDB{block: block}
	// One worker blocked in its first operation, a backlog of 5: of 100
	// arrivals, 94 must be dropped before the worker can move again.
	obs := &releaseObserver{want: 94, release: release}
	cfg := fast(Config{Clients: 1, Model: Open{Rate: 2000, MaxBacklog: 5}, Operations: 100, Interval: 20 * time.Millisecond})
	sums, err := Run(context.Background(), db, &fakeWorkload{}, cfg, obs)
	if err != nil {
		t.Fatal(err)
	}
	sum := measureSummary(t, sums)
	if sum.Overall.Count != 6 || sum.Dropped != 94 || sum.Late != 0 {
		t.Errorf("performed %d, dropped %d (%d late); want 6 (1 in flight + backlog of 5) and 94, none late", sum.Overall.Count, sum.Dropped, sum.Late)
	}
	maxBacklog := int64(0)
	for _, iv := range obs.ivs {
		maxBacklog = max(maxBacklog, iv.Backlog)
	}
	if maxBacklog != 5 {
		t.Errorf("largest reported backlog %d, want 5", maxBacklog)
	}
	if _, dropped := obs.totals(measure.PhaseMeasure); dropped != sum.Dropped {
		t.Errorf("intervals report %d dropped, summary %d", dropped, sum.Dropped)
	}
	end, _ := obs.event(EventPhaseEnd, measure.PhaseMeasure)
	if !strings.Contains(end.Detail, "dropped_backlog_full=94") {
		t.Errorf("phase_end detail %q does not report the drops", end.Detail)
	}
}

func TestCancelReturnsPartialResults(t *testing.T) {
	for _, model := range []string{ClosedName, OpenName} {
		t.Run(model, func(t *testing.T) {
			db := &fakeDB{service: 20 * time.Millisecond}
			obs := &recorder{}
			cfg := fast(Config{Clients: 2, Model: modelAt(model, 100, 100), Duration: time.Minute, Grace: 2 * time.Second})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			began := time.Now()
			sums, err := Run(ctx, db, &fakeWorkload{}, cfg, obs)
			took := time.Since(began)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error = %v, want it to wrap context.Canceled", err)
			}
			// Promptly: far below the minute it was set to run (the bound
			// is loose because the test machine may be busy).
			if took > 5*time.Second {
				t.Errorf("Run returned %v after start, want promptly after the cancel at 300ms", took)
			}
			sum := measureSummary(t, sums)
			count, _ := obs.totals(measure.PhaseMeasure)
			if sum.Overall.Count == 0 || count != sum.Overall.Count || sum.Overall.Count != db.calls.Load() {
				t.Errorf("summary %d, intervals %d, db calls %d, dropped %d", sum.Overall.Count, count, db.calls.Load(), sum.Dropped)
			}
			if ev, ok := obs.event(EventInterrupted, measure.PhaseMeasure); !ok || !strings.Contains(ev.Detail, "finished") {
				t.Errorf("interrupted event = %+v, %v", ev, ok)
			}
		})
	}
}

// An operation that ignores the interruption is cancelled after the grace
// period and the run still returns.
func TestCancelGraceCancelsStuckOperations(t *testing.T) {
	db := &fakeDB{block: make(chan struct{})} // never released
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	began := time.Now()
	sums, err := Run(ctx, db, &fakeWorkload{}, fast(Config{Clients: 3, Duration: time.Minute, Grace: 100 * time.Millisecond}), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v", err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
	// The 3 stuck operations ended with a context error after the grace.
	if sum := measureSummary(t, sums); sum.Overall.Count != 3 || sum.Overall.Errors != 3 {
		t.Errorf("count %d errors %d, want 3 and 3", sum.Overall.Count, sum.Overall.Errors)
	}
}

func TestWarmupThenMeasure(t *testing.T) {
	db := &fakeDB{}
	obs := &recorder{}
	sums, err := Run(context.Background(), db, &fakeWorkload{}, fast(Config{Clients: 2, Model: Closed{Rate: 2000}, Warmup: 100 * time.Millisecond, Operations: 300}), obs)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums[0].Phase != measure.PhaseWarmup || sums[1].Phase != measure.PhaseMeasure {
		t.Fatalf("phases = %+v", sums)
	}
	warm, meas := sums[0].Overall.Count, sums[1].Overall.Count
	if meas != 300 || warm == 0 || warm+meas != db.calls.Load() {
		t.Errorf("warmup %d + measure %d, db calls %d; want measure exactly 300", warm, meas, db.calls.Load())
	}
	if c, _ := obs.totals(measure.PhaseWarmup); c != warm {
		t.Errorf("warmup intervals count %d, summary %d", c, warm)
	}
	if !sums[1].Start.After(sums[0].Start) {
		t.Errorf("measure starts %v, warmup %v", sums[1].Start, sums[0].Start)
	}
}

func TestIntervalsAreContiguous(t *testing.T) {
	obs := &recorder{}
	sums, err := Run(context.Background(), &fakeDB{}, &fakeWorkload{}, fast(Config{Clients: 2, Model: Closed{Rate: 1000}, Duration: 330 * time.Millisecond}), obs)
	if err != nil {
		t.Fatal(err)
	}
	sum := measureSummary(t, sums)
	// 6 full intervals and a partial one; a starved ticker drops ticks, so
	// a busy machine may show fewer, never more.
	if n := len(obs.ivs); n < 2 || n > 8 {
		t.Errorf("%d intervals of 50 ms in 330 ms", n)
	}
	for i := 1; i < len(obs.ivs); i++ {
		if !obs.ivs[i].Start.Equal(obs.ivs[i-1].End) {
			t.Errorf("interval %d starts %v, previous ended %v", i, obs.ivs[i].Start, obs.ivs[i-1].End)
		}
	}
	if !obs.ivs[0].Start.Equal(sum.Start) || !obs.ivs[len(obs.ivs)-1].End.Equal(sum.End) {
		t.Errorf("intervals do not span the phase")
	}
	// 1000 ops/s over 0.33 s: 330 intended starts before the deadline; a
	// client woken late for the last ones finds the deadline passed.
	if c := sum.Overall.Count; c < 100 || c > 330 {
		t.Errorf("count %d, want at most 330 (and not far below)", c)
	}
	if len(sum.Ops) != 2 || sum.Ops[0].Op != "READ" || sum.Ops[1].Op != "UPDATE" {
		t.Errorf("ops = %v", sum.Ops)
	}
}

func TestErrorsAreCountedNotFatal(t *testing.T) {
	db := &fakeDB{failEvery: 10}
	sums, err := Run(context.Background(), db, &fakeWorkload{}, fast(Config{Clients: 3, Operations: 1000}), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := measureSummary(t, sums)
	if sum.Overall.Count != 1000 || sum.Overall.Errors != 100 || sum.Overall.Classes["unavailable"] != 100 {
		t.Errorf("count %d errors %d classes %v", sum.Overall.Count, sum.Overall.Errors, sum.Overall.Classes)
	}
	var n int64
	for _, e := range sum.Errors {
		n += e.Count
		if !strings.Contains(e.Message, "down") {
			t.Errorf("error sample %+v", e)
		}
	}
	if n != 100 {
		t.Errorf("error samples count %d, want 100", n)
	}
}

func TestOpTimeout(t *testing.T) {
	db := &fakeDB{block: make(chan struct{})}
	sums, err := Run(context.Background(), db, &fakeWorkload{}, fast(Config{Clients: 2, Operations: 4, OpTimeout: 20 * time.Millisecond}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := measureSummary(t, sums).Overall; s.Errors != 4 || s.Classes["timeout"] != 4 || s.Service.Min < 20_000 {
		t.Errorf("errors %d classes %v min service %d µs", s.Errors, s.Classes, s.Service.Min)
	}
}

func TestLoad(t *testing.T) {
	db := &fakeDB{}
	obs := &recorder{}
	wl := &fakeWorkload{loadCount: 1000}
	sum, err := Load(context.Background(), db, wl, fast(Config{Clients: 1, LoadClients: 3, LoadBatch: 7}), obs)
	if err != nil {
		t.Fatal(err)
	}
	if len(db.records) != 1000 {
		t.Errorf("%d records loaded, want 1000", len(db.records))
	}
	// ⌈1000/7⌉ = 143 full-or-last batches, plus at most one short batch per
	// other loader at the end of the key sequence.
	if c := sum.Overall.Count; c < 143 || c > 145 || sum.Phase != measure.PhaseLoad {
		t.Errorf("load summary: phase %q, %d batches", sum.Phase, c)
	}
	if sum.Records != 1000 {
		t.Errorf("summary counts %d records, want 1000", sum.Records)
	}
	if end, _ := obs.event(EventPhaseEnd, measure.PhaseLoad); !strings.Contains(end.Detail, "records=1000") {
		t.Errorf("phase_end detail %q", end.Detail)
	}
}

func TestLoadStopsOnError(t *testing.T) {
	wl := &fakeWorkload{loadCount: 1000, failLoad: 500}
	sum, err := Load(context.Background(), &fakeDB{}, wl, fast(Config{Clients: 2, LoadBatch: 10}), nil)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error = %v, want the load error", err)
	}
	if sum.Overall.Errors != 1 {
		t.Errorf("errors %d, want 1", sum.Overall.Errors)
	}
}

// Pacing can only make a run slower: a run must not finish before its
// schedule allows (a broken pacer would run as fast as possible).
func TestPacingHoldsBackOperations(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		min  time.Duration // the schedule's length
	}{
		{"closed rate", Config{Clients: 4, Model: Closed{Rate: 1000}, Operations: 200}, 199 * time.Millisecond},
		{"closed think", Config{Clients: 1, Model: Closed{ThinkTime: 10 * time.Millisecond}, Operations: 10}, 90 * time.Millisecond},
		{"open constant", Config{Clients: 2, Model: Open{Rate: 2000}, Operations: 400}, 199 * time.Millisecond},
		{"open poisson", Config{Clients: 2, Model: Open{Rate: 2000, Arrival: Poisson{}}, Operations: 400, Seed: 3}, 150 * time.Millisecond},
		{"open spin", Config{Clients: 2, Model: Open{Rate: 2000}, Operations: 400, SpinWait: time.Millisecond}, 199 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := &fakeDB{}
			began := time.Now()
			sums, err := Run(context.Background(), db, &fakeWorkload{}, fast(tc.cfg), nil)
			took := time.Since(began)
			if err != nil {
				t.Fatal(err)
			}
			if took < tc.min {
				t.Errorf("took %v, schedule needs at least %v", took, tc.min)
			}
			if c := measureSummary(t, sums).Overall.Count; c != tc.cfg.Operations || db.calls.Load() != c {
				t.Errorf("count %d, db calls %d, want %d", c, db.calls.Load(), tc.cfg.Operations)
			}
		})
	}
}

// awareDB wants intended starts; it checks each operation carries one that
// lies on the schedule (not after the operation began).
type awareDB struct {
	fakeDB
	with, without, late atomic.Int64
}

func (db *awareDB) WantsIntendedStart() {}

func (db *awareDB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	it, ok := driver.IntendedStart(ctx)
	switch {
	case !ok:
		db.without.Add(1)
	case it.After(time.Now()):
		db.late.Add(1)
	default:
		db.with.Add(1)
	}
	return db.fakeDB.Read(ctx, table, key, fields)
}

func TestIntendedStartReachesScheduleAwareDB(t *testing.T) {
	for _, model := range []string{OpenName, ClosedName} {
		db := &awareDB{}
		_, err := Run(context.Background(), db, &fakeWorkload{}, fast(Config{Clients: 2, Model: modelAt(model, 2000, 2000), Operations: 200}), nil)
		if err != nil {
			t.Fatal(err)
		}
		if db.with.Load() != 200 || db.without.Load() != 0 || db.late.Load() != 0 {
			t.Errorf("%s model: %d ops with an intended start, %d without, %d with one in the future; want 200, 0, 0",
				model, db.with.Load(), db.without.Load(), db.late.Load())
		}
	}
}

// A phase bounded by time lasts that time even when its schedule has nothing
// left to issue, so its throughput is over its real length: 2 ops/s for
// 700 ms is two operations in 0.7 s (2.9 ops/s), not two in the 0.5 s they
// spanned (4 ops/s), and one operation before a think time of an hour is not
// thousands of ops/s.
func TestTimeBoundPhaseLastsItsDuration(t *testing.T) {
	cases := []struct {
		name  string
		model Model
		dur   time.Duration
		count int64
	}{
		{"open slow rate", Open{Rate: 2}, 700 * time.Millisecond, 2},
		{"closed long think", Closed{ThinkTime: time.Hour}, 300 * time.Millisecond, 1},
		{"closed slow rate", Closed{Rate: 2}, 700 * time.Millisecond, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sums, err := Run(context.Background(), &fakeDB{}, &fakeWorkload{}, fast(Config{Clients: 1, Model: tc.model, Duration: tc.dur}), nil)
			if err != nil {
				t.Fatal(err)
			}
			sum := measureSummary(t, sums)
			length := sum.End.Sub(sum.Start)
			if sum.Overall.Count != tc.count || length < tc.dur {
				t.Fatalf("%d operations over %v, want %d over at least %v", sum.Overall.Count, length, tc.count, tc.dur)
			}
			want := float64(tc.count) / length.Seconds()
			if got := sum.Overall.Throughput; got < want*0.99 || got > want*1.01 {
				t.Errorf("throughput %.3f ops/s, want %d ops over the phase's %v = %.3f", got, tc.count, length, want)
			}
		})
	}
}

// Operations still queued when a time-bounded phase ends are dropped as
// late, not as backlog-full: the summary tells the two causes apart.
func TestLateDropsAreTheirOwnCause(t *testing.T) {
	db := &fakeDB{service: 50 * time.Millisecond}
	sums, err := Run(context.Background(), db, &fakeWorkload{}, fast(Config{Clients: 1, Model: Open{Rate: 200}, Duration: 300 * time.Millisecond}), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := measureSummary(t, sums)
	// 60 arrivals, one client serving 20/s: about 6 served, the rest late.
	if sum.Late == 0 || sum.Late != sum.Dropped || sum.Overall.Count+sum.Dropped != 60 {
		t.Errorf("performed %d, dropped %d of which %d late; want all drops late and 60 in all", sum.Overall.Count, sum.Dropped, sum.Late)
	}
}

// A load phase bounded in time stops there and says how much it loaded.
func TestLoadDurationBound(t *testing.T) {
	db := &fakeDB{service: 5 * time.Millisecond}
	wl := &fakeWorkload{loadCount: 1_000_000}
	sum, err := Load(context.Background(), db, wl, fast(Config{Clients: 1, LoadBatch: 1, LoadDuration: 200 * time.Millisecond}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Records == 0 || sum.Records >= sum.Wanted || sum.Wanted != 1_000_000 {
		t.Errorf("loaded %d of %d records, want a partial load", sum.Records, sum.Wanted)
	}
	if d := sum.End.Sub(sum.Start); d > 2*time.Second {
		t.Errorf("the bounded load took %v", d)
	}
}

package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/loadmodel"
	"github.com/dbrig/dbrig/measure"
)

// The helpers testRoundTrip and testConcurrentWriters take any store, so that
// postgres_test.go runs them against PostgreSQL too. They work on a database
// that already holds other runs.

const secret = "s3cret-Pa55"

func openSQLite(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newSQLite(t testing.TB) *Store {
	t.Helper()
	return openSQLite(t, filepath.Join(t.TempDir(), "results.db"))
}

// histOf returns a histogram holding the given values (µs).
func histOf(t testing.TB, values ...int64) *hdr.Histogram {
	t.Helper()
	h := measure.NewHistogram()
	for _, v := range values {
		if err := h.RecordValue(v); err != nil {
			t.Fatalf("RecordValue(%d): %v", v, err)
		}
	}
	return h
}

// spread returns n values from lo growing by step.
func spread(n int, lo, step int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = lo + int64(i)*step
	}
	return out
}

func stats(h *hdr.Histogram) measure.Stats {
	return measure.StatsOf(h)
}

func opSummary(t testing.TB, op string, errs int64, secs float64, resp, svc []int64) measure.OpSummary {
	rh, sh := histOf(t, resp...), histOf(t, svc...)
	o := measure.OpSummary{Op: op, Count: rh.TotalCount(), Errors: errs, Throughput: float64(rh.TotalCount()) / secs,
		Response: stats(rh), Service: stats(sh), ResponseHist: rh, ServiceHist: sh}
	if errs > 0 {
		o.Classes = map[string]int64{"timeout": errs}
	}
	return o
}

// sampleSummary is a phase of 10 s with READ and UPDATE and their merge.
func sampleSummary(t testing.TB, phase string, start time.Time, scale int64) measure.Summary {
	read := opSummary(t, "READ", 2, 10, spread(900, 100*scale, 3), spread(900, 90*scale, 3))
	update := opSummary(t, "UPDATE", 0, 10, spread(100, 500*scale, 50), spread(100, 400*scale, 50))
	all := opSummary(t, measure.OverallOp, 2, 10, append(spread(900, 100*scale, 3), spread(100, 500*scale, 50)...),
		append(spread(900, 90*scale, 3), spread(100, 400*scale, 50)...))
	all.Classes = map[string]int64{"timeout": 2}
	return measure.Summary{Phase: phase, Start: start, End: start.Add(10 * time.Second),
		Ops: []measure.OpSummary{read, update}, Overall: all, Dropped: 7,
		Errors: []measure.ErrorSample{{Op: "READ", Class: "timeout", Message: "dial tcp 127.0.0.1:6379: i/o timeout password=" + secret, Count: 2}}}
}

func sampleInfo(tag string, start time.Time) RunInfo {
	return RunInfo{
		Name: "round trip", Tags: []string{tag, "nightly", " ", "nightly"},
		Command: "dbrig run -P workloads/workloada -p postgres.password=" + secret + " --password " + secret + " --target postgres://bench:" + secret + "@127.0.0.1:5432/ycsb",
		System:  "postgres", Driver: "postgres", ServerVersion: "16.4",
		Target:   "postgres://bench:" + secret + "@127.0.0.1:5432/ycsb",
		Workload: "ycsb/workloada",
		Props: map[string]string{"recordcount": "1000", "operationcount": "5000",
			"postgres.password": secret, "postgres.url": "postgres://bench:" + secret + "@127.0.0.1/ycsb"},
		Load: loadmodel.Load{Model: "open", Clients: 16, Rate: 5000, Arrival: "poisson", ThinkTime: 0,
			Warmup: 5 * time.Second, Duration: 30 * time.Second, Operations: 0, Seed: 42},
		Host:         Host{Hostname: "bench1", OS: "Debian 12", Kernel: "6.1.0", CPUModel: "Xeon", Cores: 8, MemoryBytes: 16 << 30},
		DbrigVersion: "0.1.0", GoVersion: "go1.26.0", Start: start,
		Spec: "recordcount=1000\npostgres.password=" + secret + "\n",
	}
}

func interval(t testing.TB, phase string, start time.Time, reads, updates int, dropped int64) measure.Interval {
	iv := measure.Interval{Phase: phase, Start: start, End: start.Add(time.Second), Dropped: dropped, Backlog: 3}
	if reads > 0 {
		iv.Ops = append(iv.Ops, measure.OpInterval{Op: "READ", Count: int64(reads), Errors: 1,
			Classes:  map[string]int64{"timeout": 1},
			Response: histOf(t, spread(reads, 200, 10)...), Service: histOf(t, spread(reads, 150, 10)...)})
	}
	if updates > 0 {
		iv.Ops = append(iv.Ops, measure.OpInterval{Op: "UPDATE", Count: int64(updates),
			Response: histOf(t, spread(updates, 1000, 100)...), Service: histOf(t, spread(updates, 800, 100)...)})
	}
	return iv
}

func assertNoSecret(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, secret) {
		t.Errorf("%s contains the secret: %q", what, s)
	}
}

func sameHist(t *testing.T, what string, got, want *hdr.Histogram) {
	t.Helper()
	if got == nil || want == nil {
		t.Fatalf("%s: histogram got %v, want %v", what, got != nil, want != nil)
	}
	if !got.Equals(want) {
		t.Errorf("%s: decoded histogram differs: count %d p99 %d, want count %d p99 %d",
			what, got.TotalCount(), got.ValueAtPercentile(99), want.TotalCount(), want.ValueAtPercentile(99))
	}
}

// testRoundTrip writes a complete run and reads every part of it back.
func testRoundTrip(t *testing.T, s *Store) {
	ctx := context.Background()
	tag := fmt.Sprintf("rt-%d", time.Now().UnixNano())
	start := time.Date(2025, 3, 4, 10, 0, 0, 123456000, time.UTC)
	info := sampleInfo(tag, start)
	id, err := s.CreateRun(ctx, info)
	if err != nil {
		t.Fatalf("CreateRun: %v", err)
	}
	ivs := []measure.Interval{
		interval(t, measure.PhaseWarmup, start, 50, 5, 0),
		interval(t, measure.PhaseMeasure, start.Add(time.Second), 90, 10, 0),
		interval(t, measure.PhaseMeasure, start.Add(2*time.Second), 0, 0, 40), // a stall: nothing completed
	}
	for _, iv := range ivs {
		if err := s.AddInterval(ctx, id, iv); err != nil {
			t.Fatalf("AddInterval: %v", err)
		}
	}
	ev := Event{Time: start.Add(1500 * time.Millisecond), Kind: "fault", Name: "kill node2",
		Detail: "target postgres://bench:" + secret + "@127.0.0.1/x", Outcome: "ok"}
	if err := s.AddEvent(ctx, id, ev); err != nil {
		t.Fatalf("AddEvent: %v", err)
	}
	warm := sampleSummary(t, measure.PhaseWarmup, start, 2)
	meas := sampleSummary(t, measure.PhaseMeasure, start.Add(time.Second), 1)
	for _, sum := range []measure.Summary{warm, meas} {
		if err := s.AddPhase(ctx, id, sum); err != nil {
			t.Fatalf("AddPhase %s: %v", sum.Phase, err)
		}
	}
	end := start.Add(12 * time.Second)
	if err := s.FinishRun(ctx, id, StatusDone, end, ""); err != nil {
		t.Fatalf("FinishRun: %v", err)
	}

	d, err := s.Run(ctx, id)
	if err != nil {
		t.Fatalf("Run(%d): %v", id, err)
	}
	// Context.
	if d.ID != id || d.Status != StatusDone || d.Abandoned || !d.Start.Equal(start) || !d.End.Equal(end) {
		t.Errorf("run row: id %d status %q abandoned %v start %v end %v; want %d done false %v %v",
			d.ID, d.Status, d.Abandoned, d.Start, d.End, id, start, end)
	}
	if got, want := strings.Join(d.Tags, ","), tag+",nightly"; got != want {
		t.Errorf("tags = %q, want %q", got, want)
	}
	gi, wi := d.Info, info
	if gi.Load != wi.Load || gi.Host != wi.Host || gi.System != wi.System || gi.Driver != wi.Driver ||
		gi.ServerVersion != wi.ServerVersion || gi.Workload != wi.Workload || gi.DbrigVersion != wi.DbrigVersion ||
		gi.GoVersion != wi.GoVersion || gi.Name != wi.Name {
		t.Errorf("run info differs:\n got %+v\nwant %+v", gi, wi)
	}
	if gi.Props["recordcount"] != "1000" || gi.Props["operationcount"] != "5000" || len(gi.Props) != 4 {
		t.Errorf("props = %v", gi.Props)
	}
	if gi.Props["postgres.password"] != "REDACTED" {
		t.Errorf("postgres.password stored as %q, want REDACTED", gi.Props["postgres.password"])
	}
	for k, v := range gi.Props {
		assertNoSecret(t, "prop "+k, v)
	}
	for what, v := range map[string]string{"target": gi.Target, "command": gi.Command, "spec": gi.Spec} {
		assertNoSecret(t, what, v)
		if !strings.Contains(v, "REDACTED") {
			t.Errorf("%s = %q: expected a REDACTED password", what, v)
		}
	}
	if want := "postgres://bench:REDACTED@127.0.0.1:5432/ycsb"; gi.Target != want {
		t.Errorf("target = %q, want %q", gi.Target, want)
	}
	// Phases.
	if len(d.Phases) != 2 || d.Phases[0].Phase != measure.PhaseWarmup || d.Phases[1].Phase != measure.PhaseMeasure {
		t.Fatalf("phases = %d, want warmup then measure", len(d.Phases))
	}
	got, ok := d.Phase(measure.PhaseMeasure)
	if !ok {
		t.Fatal("no measure phase")
	}
	if !got.Start.Equal(meas.Start) || !got.End.Equal(meas.End) || got.Dropped != meas.Dropped {
		t.Errorf("measure phase: %v–%v dropped %d, want %v–%v dropped %d", got.Start, got.End, got.Dropped, meas.Start, meas.End, meas.Dropped)
	}
	if len(got.Ops) != 2 || got.Ops[0].Op != "READ" || got.Ops[1].Op != "UPDATE" {
		t.Fatalf("measure ops = %+v, want READ, UPDATE in order", got.Ops)
	}
	wantOps := append(append([]measure.OpSummary(nil), meas.Ops...), meas.Overall)
	for i, g := range append(got.Ops, got.Overall) {
		w := wantOps[i]
		if g.Op != w.Op || g.Count != w.Count || g.Errors != w.Errors || g.Throughput != w.Throughput ||
			g.Response != w.Response || g.Service != w.Service || g.Classes["timeout"] != w.Classes["timeout"] {
			t.Errorf("op %s:\n got %+v %+v %+v\nwant %+v %+v %+v", w.Op, g.Count, g.Response, g.Service, w.Count, w.Response, w.Service)
		}
		sameHist(t, w.Op+" response", g.ResponseHist, w.ResponseHist)
		sameHist(t, w.Op+" service", g.ServiceHist, w.ServiceHist)
	}
	if w := d.Phases[0].Ops[0].Response.P99; w != warm.Ops[0].Response.P99 || w == meas.Ops[0].Response.P99 {
		t.Errorf("warmup READ p99 = %d, want %d (distinct from measure's %d)", w, warm.Ops[0].Response.P99, meas.Ops[0].Response.P99)
	}
	if len(got.Errors) != 1 || got.Errors[0].Count != 2 || got.Errors[0].Class != "timeout" {
		t.Errorf("errors = %+v", got.Errors)
	} else {
		assertNoSecret(t, "error message", got.Errors[0].Message)
	}
	// Events.
	if len(d.Events) != 1 || d.Events[0].Name != ev.Name || !d.Events[0].Time.Equal(ev.Time) || d.Events[0].Outcome != "ok" {
		t.Errorf("events = %+v", d.Events)
	} else {
		assertNoSecret(t, "event detail", d.Events[0].Detail)
	}
	// Intervals: per second the ops, then OVERALL.
	rows, err := s.Intervals(ctx, id)
	if err != nil {
		t.Fatalf("Intervals: %v", err)
	}
	var ops []string
	for _, r := range rows {
		ops = append(ops, fmt.Sprintf("%s@%d", r.Op, r.T.Milliseconds()))
	}
	if got, want := strings.Join(ops, " "), "READ@1000 UPDATE@1000 OVERALL@1000 READ@2000 UPDATE@2000 OVERALL@2000 OVERALL@3000"; got != want {
		t.Fatalf("interval rows = %s\nwant %s", got, want)
	}
	read := rows[3] // measure, second 2
	wantRead := ivs[1].Ops[0].Response
	if read.Phase != measure.PhaseMeasure || read.Count != 90 || read.Errors != 1 || read.Classes["timeout"] != 1 ||
		read.P99US != measure.Percentile(wantRead, 99) || read.MaxUS != wantRead.Max() ||
		read.SvcP99US != measure.Percentile(ivs[1].Ops[0].Service, 99) || read.Length != time.Second || !read.Start.Equal(ivs[1].Start) {
		t.Errorf("READ interval = %+v", read)
	}
	h, err := read.Histogram()
	if err != nil {
		t.Fatalf("interval histogram: %v", err)
	}
	sameHist(t, "interval READ", h, wantRead)
	overall := rows[5]
	merged := measure.NewHistogram()
	merged.Merge(ivs[1].Ops[0].Response)
	merged.Merge(ivs[1].Ops[1].Response)
	if overall.Count != 100 || overall.Errors != 1 || overall.P99US != merged.ValueAtPercentile(99) || overall.Hist != nil || overall.Backlog != 3 {
		t.Errorf("OVERALL interval = %+v, want count 100, p99 %d, no histogram", overall, merged.ValueAtPercentile(99))
	}
	if stall := rows[6]; stall.Count != 0 || stall.Dropped != 40 || stall.P99US != 0 {
		t.Errorf("stall interval = %+v, want count 0, dropped 40", stall)
	}
	// The list shows the run with its measure figures.
	list, err := s.ListRuns(ctx, Filter{Tag: tag})
	if err != nil {
		t.Fatalf("ListRuns: %v", err)
	}
	if len(list) != 1 || list[0].ID != id || list[0].Throughput != meas.Overall.Throughput ||
		list[0].P99US != meas.Overall.Response.P99 || list[0].Count != meas.Overall.Count {
		t.Errorf("ListRuns(tag) = %+v, want run %d with throughput %v p99 %d", list, id, meas.Overall.Throughput, meas.Overall.Response.P99)
	}
}

// testConcurrentWriters has two stores write two runs at once.
func testConcurrentWriters(t *testing.T, open func(t *testing.T) *Store) {
	ctx := context.Background()
	stores := []*Store{open(t), open(t)}
	tag := fmt.Sprintf("cw-%d", time.Now().UnixNano())
	const seconds = 40
	var wg sync.WaitGroup
	ids := make([]int64, len(stores))
	errs := make([]error, len(stores))
	start := time.Now()
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = func() error {
				info := sampleInfo(tag, start)
				info.Name = fmt.Sprintf("writer %d", i)
				id, err := s.CreateRun(ctx, info)
				if err != nil {
					return err
				}
				ids[i] = id
				for sec := 0; sec < seconds; sec++ {
					iv := interval(t, measure.PhaseMeasure, start.Add(time.Duration(sec)*time.Second), 20+i, 3, 0)
					if err := s.AddInterval(ctx, id, iv); err != nil {
						return err
					}
					if sec%10 == 0 {
						if err := s.AddEvent(ctx, id, Event{Kind: "note", Name: fmt.Sprint(sec)}); err != nil {
							return err
						}
					}
				}
				if err := s.AddPhase(ctx, id, sampleSummary(t, measure.PhaseMeasure, start, 1)); err != nil {
					return err
				}
				return s.FinishRun(ctx, id, StatusDone, time.Now(), "")
			}()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if ids[0] == ids[1] {
		t.Fatalf("both writers got run id %d", ids[0])
	}
	for i, id := range ids {
		rows, err := stores[1-i].Intervals(ctx, id) // read through the other store
		if err != nil {
			t.Fatalf("Intervals(%d): %v", id, err)
		}
		var reads int64
		n := 0
		for _, r := range rows {
			if r.Op == "READ" {
				reads += r.Count
				n++
			}
		}
		if n != seconds || reads != int64(seconds*(20+i)) {
			t.Errorf("run %d: %d READ intervals with %d reads, want %d with %d", id, n, reads, seconds, seconds*(20+i))
		}
	}
	list, err := stores[0].ListRuns(ctx, Filter{Tag: tag, Status: StatusDone})
	if err != nil || len(list) != 2 {
		t.Fatalf("ListRuns = %d runs, %v; want 2", len(list), err)
	}
}

func TestRoundTripSQLite(t *testing.T) { testRoundTrip(t, newSQLite(t)) }

func TestConcurrentWritersSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	testConcurrentWriters(t, func(t *testing.T) *Store { return openSQLite(t, path) })
}

// TestSecretsNeverWritten looks for the secret in the SQLite files themselves,
// so no column (also one no reader looks at) can leak it.
func TestSecretsNeverWritten(t *testing.T) {
	dir := t.TempDir()
	s := openSQLite(t, filepath.Join(dir, "results.db"))
	testRoundTrip(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "results.db*"))
	if len(files) == 0 {
		t.Fatal("no database files written")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("%s contains the secret", filepath.Base(f))
		}
		if strings.Contains(string(b), "REDACTED") == false && strings.HasSuffix(f, ".db") {
			t.Errorf("%s: expected redacted values in the main file", filepath.Base(f))
		}
	}
}

func TestFinishRunTransitions(t *testing.T) {
	ctx := context.Background()
	s := newSQLite(t)
	id, err := s.CreateRun(ctx, RunInfo{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, id, "ok", time.Now(), ""); err == nil || !strings.Contains(err.Error(), `"ok"`) {
		t.Errorf("FinishRun(status ok) = %v, want an error naming the status", err)
	}
	if err := s.FinishRun(ctx, id, StatusFailed, time.Now(), "connection refused: postgres://u:"+secret+"@127.0.0.1/x"); err != nil {
		t.Fatalf("FinishRun(failed): %v", err)
	}
	if err := s.FinishRun(ctx, id, StatusDone, time.Now(), ""); err == nil || !strings.Contains(err.Error(), "already failed") {
		t.Errorf("second FinishRun = %v, want 'already failed'", err)
	}
	d, err := s.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != StatusFailed || d.End.IsZero() || !strings.Contains(d.Message, "connection refused") {
		t.Errorf("run = status %q end %v message %q", d.Status, d.End, d.Message)
	}
	assertNoSecret(t, "message", d.Message)
}

func TestUnknownRun(t *testing.T) {
	ctx := context.Background()
	s := newSQLite(t)
	calls := map[string]func() error{
		"Run":         func() error { _, err := s.Run(ctx, 99); return err },
		"Intervals":   func() error { _, err := s.Intervals(ctx, 99); return err },
		"AddInterval": func() error { return s.AddInterval(ctx, 99, measure.Interval{Phase: "measure"}) },
		"AddEvent":    func() error { return s.AddEvent(ctx, 99, Event{Kind: "note"}) },
		"AddPhase":    func() error { return s.AddPhase(ctx, 99, measure.Summary{Phase: "measure"}) },
		"FinishRun":   func() error { return s.FinishRun(ctx, 99, StatusDone, time.Now(), "") },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrNoRun) || !strings.Contains(err.Error(), "99") {
			t.Errorf("%s(99) = %v, want ErrNoRun naming the id", name, err)
		}
	}
}

func TestListRunsFilters(t *testing.T) {
	ctx := context.Background()
	s := newSQLite(t)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	runs := []struct {
		system, workload, tag, status string
		day                           int
	}{
		{"redis", "ycsb/workloada", "a", StatusDone, 1},
		{"redis", "ycsb/workloadb", "b", StatusFailed, 2},
		{"postgres", "ycsb/workloada", "a", StatusDone, 3},
		{"postgres", "ycsb/workloada", "b", StatusRunning, 4},
	}
	ids := map[int]int64{}
	for i, r := range runs {
		id, err := s.CreateRun(ctx, RunInfo{System: r.system, Workload: r.workload, Tags: []string{r.tag},
			Start: base.AddDate(0, 0, r.day)})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
		if r.status != StatusRunning {
			if err := s.FinishRun(ctx, id, r.status, base.AddDate(0, 0, r.day).Add(time.Minute), ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name string
		f    Filter
		want []int // indexes into runs, newest first
	}{
		{"all newest first", Filter{}, []int{3, 2, 1, 0}},
		{"system", Filter{System: "redis"}, []int{1, 0}},
		{"workload", Filter{Workload: "ycsb/workloada"}, []int{3, 2, 0}},
		{"status", Filter{Status: StatusDone}, []int{2, 0}},
		{"tag", Filter{Tag: "b"}, []int{3, 1}},
		{"since", Filter{Since: base.AddDate(0, 0, 2)}, []int{3, 2, 1}},
		{"limit", Filter{Limit: 2}, []int{3, 2}},
		{"combined", Filter{System: "postgres", Tag: "a"}, []int{2}},
		{"none", Filter{System: "etcd"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ListRuns(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var gotIDs, wantIDs []int64
			for _, r := range got {
				gotIDs = append(gotIDs, r.ID)
			}
			for _, i := range tt.want {
				wantIDs = append(wantIDs, ids[i])
			}
			if fmt.Sprint(gotIDs) != fmt.Sprint(wantIDs) {
				t.Errorf("ids = %v, want %v", gotIDs, wantIDs)
			}
		})
	}
}

func TestAbandonedRun(t *testing.T) {
	ctx := context.Background()
	s := newSQLite(t)
	alive, err := s.CreateRun(ctx, RunInfo{Name: "alive"})
	if err != nil {
		t.Fatal(err)
	}
	dead, err := s.CreateRun(ctx, RunInfo{Name: "dead"})
	if err != nil {
		t.Fatal(err)
	}
	// The dead run's process wrote its last interval two minutes ago.
	if _, err := s.exec(ctx, `UPDATE runs SET updated_at = ? WHERE id = ?`, fmtTime(time.Now().Add(-2*time.Minute)), dead); err != nil {
		t.Fatal(err)
	}
	list, err := s.ListRuns(ctx, Filter{Status: StatusRunning})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]string{}
	for _, r := range list {
		got[r.ID] = r.DisplayStatus()
	}
	if got[alive] != "running" || got[dead] != "abandoned" {
		t.Errorf("display status = %v, want %d running, %d abandoned", got, alive, dead)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if p, err := DefaultPath(); err != nil || p != "/xdg/dbrig/results.db" {
		t.Errorf("with XDG_DATA_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/u")
	if p, err := DefaultPath(); err != nil || p != "/home/u/.local/share/dbrig/results.db" {
		t.Errorf("with HOME: %q, %v", p, err)
	}
}

func TestOpenDefaultCreatesDirectory(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", filepath.Join(t.TempDir(), "data"))
	s := openSQLite(t, "")
	if _, err := s.CreateRun(context.Background(), RunInfo{}); err != nil {
		t.Fatal(err)
	}
	p, _ := DefaultPath()
	if _, err := os.Stat(p); err != nil {
		t.Errorf("default store not created: %v", err)
	}
}

func TestOpenMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "r.db")
	_, err := Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Open(%s) = %v, want an error naming the path", path, err)
	}
}

func TestRebind(t *testing.T) {
	tests := []struct{ in, sqlite, pg string }{
		{"SELECT 1", "SELECT 1", "SELECT 1"},
		{"a = ? AND b = ?", "a = ? AND b = ?", "a = $1 AND b = $2"},
		{"x = '?' AND y = ?", "x = '?' AND y = ?", "x = '?' AND y = $1"},
		{`"we?ird" = ?`, `"we?ird" = ?`, `"we?ird" = $1`},
	}
	for _, tt := range tests {
		if got := sqliteDialect.rebind(tt.in); got != tt.sqlite {
			t.Errorf("sqlite rebind(%q) = %q", tt.in, got)
		}
		if got := postgresDialect.rebind(tt.in); got != tt.pg {
			t.Errorf("postgres rebind(%q) = %q, want %q", tt.in, got, tt.pg)
		}
	}
}

func TestRedactWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"dbrig run -p recordcount=10", "dbrig run -p recordcount=10"},
		{"-p redis.password=" + secret + " -p x=1", "-p redis.password=REDACTED -p x=1"},
		{"--password " + secret + " --clients 4", "--password REDACTED --clients 4"},
		{"--token=" + secret, "--token=REDACTED"},
		{"--target postgres://u:" + secret + "@127.0.0.1:5432/db?sslmode=disable", "--target postgres://u:REDACTED@127.0.0.1:5432/db?sslmode=disable"},
		{"dial host=127.0.0.1 password=" + secret + " user=u", "dial host=127.0.0.1 password=REDACTED user=u"},
		{"password authentication failed for user", "password authentication failed for user"},
	}
	for _, tt := range tests {
		if got := redactWords(tt.in); got != tt.want {
			t.Errorf("redactWords(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestHistogramEncoding(t *testing.T) {
	h := histOf(t, spread(1000, 1, 997)...)
	raw, err := encodeHist(h)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeHist(raw)
	if err != nil {
		t.Fatal(err)
	}
	sameHist(t, "round trip", back, h)
	if empty, err := encodeHist(measure.NewHistogram()); empty != nil || err != nil {
		t.Errorf("empty histogram encodes to %d bytes, %v; want NULL", len(empty), err)
	}
	if _, err := DecodeHist([]byte("not a histogram")); err == nil {
		t.Error("DecodeHist(garbage) succeeded")
	}
}

// An interval row's percentiles are nearest rank, as the summaries' are: of
// seven values, p50 is the 4th and p95 and p99 the 7th (hdrhistogram-go's own
// rounding would give the 6th for p90 and below).
func TestIntervalPercentilesNearestRank(t *testing.T) {
	ctx := context.Background()
	s := newSQLite(t)
	start := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	id, err := s.CreateRun(ctx, RunInfo{Name: "t", Start: start})
	if err != nil {
		t.Fatal(err)
	}
	vals := []int64{5, 17, 100, 1000, 1500, 30000, 2000000}
	iv := measure.Interval{Phase: measure.PhaseMeasure, Start: start, End: start.Add(time.Second),
		Ops: []measure.OpInterval{{Op: "READ", Count: 7, Response: histOf(t, vals...), Service: histOf(t, vals[:6]...)}}}
	if err := s.AddInterval(ctx, id, iv); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Intervals(ctx, id)
	if err != nil || len(rows) != 2 {
		t.Fatalf("Intervals = %d rows, %v; want READ and OVERALL", len(rows), err)
	}
	h := measure.NewHistogram()
	for _, r := range rows {
		for _, f := range []struct {
			name      string
			got, want int64
		}{
			{"p50", r.P50US, 1000}, {"p95", r.P95US, 2000000}, {"p99", r.P99US, 2000000},
			{"max", r.MaxUS, 2000000}, {"svc p99", r.SvcP99US, 30000},
		} {
			if !h.ValuesAreEquivalent(f.got, f.want) {
				t.Errorf("%s %s = %d, want %d", r.Op, f.name, f.got, f.want)
			}
		}
	}
}

// TestOpenWhileFileIsBeingCreated: two processes (or two runs in one, as
// dbrig validate does) that open a fresh store at once both switch it to
// WAL, which writes page 1; SQLite answers one of them SQLITE_BUSY at once,
// without waiting (each already reads, so waiting could deadlock). Open
// must try again rather than fail. A writer holding the file in rollback
// mode makes that answer certain here.
func TestOpenWhileFileIsBeingCreated(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fresh.db")
	other, err := sql.Open("sqlite", path+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "CREATE TABLE other (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	release := time.AfterFunc(300*time.Millisecond, func() {
		if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
			t.Errorf("COMMIT: %v", err)
		}
	})
	defer release.Stop()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open while another connection writes the fresh file: %v", err)
	}
	defer s.Close()
	if _, err := s.CreateRun(ctx, sampleInfo("fresh", time.Now())); err != nil {
		t.Fatal(err)
	}
}

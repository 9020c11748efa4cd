package measure

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/errclass"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func us(n int64) time.Duration { return time.Duration(n) * time.Microsecond }

func opByName(t *testing.T, iv Interval, name string) OpInterval {
	t.Helper()
	for _, o := range iv.Ops {
		if o.Op == name {
			return o
		}
	}
	t.Fatalf("interval has no op %q (ops: %+v)", name, iv.Ops)
	return OpInterval{}
}

func TestRecordResponseAndService(t *testing.T) {
	r := NewRecorder([]string{"READ", "UPDATE"})
	c := r.Shard()
	// intended, started, ended offsets in µs; response = end-intended, service = end-started.
	cases := []struct {
		op                   Op
		intended, start, end int64
		err                  error
	}{
		{0, 0, 0, 100, nil},
		{0, 0, 5000, 5200, nil}, // queued 5 ms: response 5200, service 200
		{1, 10, 10, 40, errclass.Wrap(errclass.Timeout, errors.New("deadline"))},
		{1, 10, 10, 50, fmt.Errorf("get k: %w", errclass.ErrNotFound)},
	}
	for _, tc := range cases {
		c.Record(tc.op, t0.Add(us(tc.intended)), t0.Add(us(tc.start)), t0.Add(us(tc.end)), tc.err)
	}
	iv := r.Cut(PhaseMeasure, t0.Add(time.Second))
	if iv.Phase != PhaseMeasure || len(iv.Ops) != 2 {
		t.Fatalf("interval = %+v", iv)
	}
	read := opByName(t, iv, "READ")
	if read.Count != 2 || read.Errors != 0 {
		t.Errorf("READ count/errors = %d/%d, want 2/0", read.Count, read.Errors)
	}
	if got := read.Response.Max(); !read.Response.ValuesAreEquivalent(got, 5200) {
		t.Errorf("READ response max = %d, want ≈5200", got)
	}
	if got := read.Service.Max(); !read.Service.ValuesAreEquivalent(got, 200) {
		t.Errorf("READ service max = %d, want ≈200", got)
	}
	upd := opByName(t, iv, "UPDATE")
	if upd.Count != 2 || upd.Errors != 2 {
		t.Errorf("UPDATE count/errors = %d/%d, want 2/2", upd.Count, upd.Errors)
	}
	want := map[string]int64{"timeout": 1, "not_found": 1}
	if fmt.Sprint(upd.Classes) != fmt.Sprint(want) {
		t.Errorf("UPDATE classes = %v, want %v", upd.Classes, want)
	}
	errs := r.TakeErrors()
	if len(errs) != 2 || errs[0].Op != "UPDATE" {
		t.Errorf("errors = %+v, want 2 samples for UPDATE", errs)
	}
	// The next interval is empty and starts where this one ended.
	iv2 := r.Cut(PhaseMeasure, t0.Add(2*time.Second))
	if len(iv2.Ops) != 0 || !iv2.Start.Equal(iv.End) {
		t.Errorf("second interval = %+v, want empty starting at %v", iv2, iv.End)
	}
}

func TestRecordClampsAndInvalidOp(t *testing.T) {
	r := NewRecorder([]string{"READ"})
	c := r.Shard()
	c.Record(0, t0, t0.Add(time.Second), t0, nil)      // ended before started: clamp to 0
	c.Record(0, t0, t0, t0.Add(2*time.Hour), nil)      // beyond 1 h: clamp to max
	c.Record(7, t0, t0, t0.Add(time.Microsecond), nil) // bad op index
	c.Record(-1, t0, t0, t0.Add(time.Microsecond), nil)
	iv := r.Cut(PhaseMeasure, t0)
	read := opByName(t, iv, "READ")
	if read.Count != 2 || read.Response.Min() != 0 || !read.Response.ValuesAreEquivalent(read.Response.Max(), HistMaxUS) {
		t.Errorf("READ = count %d min %d max %d", read.Count, read.Response.Min(), read.Response.Max())
	}
	if inv := opByName(t, iv, InvalidOp); inv.Count != 2 {
		t.Errorf("%s count = %d, want 2", InvalidOp, inv.Count)
	}
}

// Many goroutines record while another cuts as fast as it can: every
// operation must land in exactly one interval.
func TestCutLosesNothingConcurrently(t *testing.T) {
	const clients, perClient = 8, 20000
	r := NewRecorder([]string{"A", "B"})
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		c := r.Shard()
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for k := 0; k < perClient; k++ {
				var err error
				if k%10 == 0 {
					err = errors.New("boom")
				}
				c.Record(Op(k%2), t0, t0, t0.Add(us(int64(k%1000))), err)
			}
		}(i)
	}
	done := make(chan struct{})
	var ivs []Interval
	cutterDone := make(chan struct{})
	go func() {
		defer close(cutterDone)
		for {
			select {
			case <-done:
				return
			default:
				ivs = append(ivs, r.Cut(PhaseMeasure, time.Now()))
			}
		}
	}()
	wg.Wait()
	close(done)
	<-cutterDone
	ivs = append(ivs, r.Cut(PhaseMeasure, time.Now()))

	var count, errs, hist int64
	for _, iv := range ivs {
		for _, o := range iv.Ops {
			count += o.Count
			errs += o.Errors
			hist += o.Response.TotalCount()
			if o.Response.TotalCount() != o.Count || o.Service.TotalCount() != o.Count {
				t.Fatalf("histogram totals %d/%d differ from count %d", o.Response.TotalCount(), o.Service.TotalCount(), o.Count)
			}
		}
	}
	if count != clients*perClient || hist != count {
		t.Errorf("recorded %d (histograms %d), want %d", count, hist, clients*perClient)
	}
	if errs != clients*perClient/10 {
		t.Errorf("errors %d, want %d", errs, clients*perClient/10)
	}
	if len(ivs) < 3 {
		t.Logf("only %d intervals: the cutter hardly overlapped the writers", len(ivs))
	}
}

func TestErrorMessagesBounded(t *testing.T) {
	r := NewRecorder([]string{"READ"})
	var total int64
	for ci := 0; ci < 3; ci++ {
		c := r.Shard()
		for k := 0; k < 50; k++ {
			c.Record(0, t0, t0, t0, fmt.Errorf("connection to node %d refused", k%20))
			total++
		}
		r.Cut(PhaseMeasure, t0)
	}
	samples := r.TakeErrors()
	var sum int64
	kept := 0
	for _, s := range samples {
		sum += s.Count
		if s.Message != OtherMessages {
			kept++
		}
		if s.Op != "READ" || s.Class != "other" {
			t.Errorf("sample %+v: want op READ class other", s)
		}
	}
	if sum != total {
		t.Errorf("sample counts add to %d, want %d", sum, total)
	}
	if kept > phaseMessages || kept == 0 {
		t.Errorf("kept %d distinct messages, want 1..%d", kept, phaseMessages)
	}
	if again := r.TakeErrors(); len(again) != 0 {
		t.Errorf("TakeErrors did not reset: %+v", again)
	}
}

// Dispatch lag is started − max(intended, ready): the generator's lateness
// once the operation could start, not the time it queued behind a busy
// client.
func TestRecordReadyLag(t *testing.T) {
	r := NewRecorder([]string{"READ"})
	t0 := time.Now()
	r.SetStart(t0)
	c := r.Shard()
	us := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Microsecond) }
	c.RecordReady(0, us(0), us(0), us(30), us(100), nil)         // free when due: lag 30
	c.RecordReady(0, us(0), us(500), us(520), us(600), nil)      // busy until 500: lag 20, response 600
	c.RecordReady(0, us(1000), us(900), us(1007), us(1100), nil) // ready before due counts as due: lag 7
	c.Record(0, us(2000), us(2040), us(2100), nil)               // Record: ready = intended, lag 40
	iv := r.Cut("measure", us(3000))
	if iv.Lag == nil || iv.Lag.TotalCount() != 4 {
		t.Fatalf("lag histogram %v", iv.Lag)
	}
	for _, tc := range []struct {
		q    float64
		want int64
	}{{25, 7}, {50, 20}, {75, 30}, {100, 40}} {
		if got := iv.Lag.ValueAtPercentile(tc.q); got != tc.want {
			t.Errorf("lag p%v = %d µs, want %d", tc.q, got, tc.want)
		}
	}
	if max := iv.Ops[0].Response.Max(); max != 600 {
		t.Errorf("response max %d, want 600 (lag is inside it, not instead of it)", max)
	}
	sum := Summarize("measure", []Interval{iv}, nil)
	if sum.Lag.Max != 40 || sum.Lag.Count != 4 {
		t.Errorf("summary lag %+v, want max 40 over 4 operations", sum.Lag)
	}
	if iv2 := r.Cut("measure", us(4000)); iv2.Lag != nil {
		t.Errorf("an interval without operations has a lag histogram")
	}
}

// A shard's first lagging operation allocates nothing: the lag histograms
// exist from the start, so memory does not grow late in a run (a punctual
// generator lags rarely, and a lazily made ~190 KB histogram per buffer
// showed as RSS growing for minutes).
func TestFirstLagAllocatesNothing(t *testing.T) {
	r := NewRecorder([]string{"READ"})
	sh := r.Shard()
	t0 := time.Now()
	for range 2 { // both buffers get their operation histograms (lazily)
		sh.RecordReady(0, t0, t0, t0, t0.Add(time.Microsecond), nil)
		r.Cut(PhaseMeasure, time.Now())
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sh.RecordReady(0, t0, t0, t0.Add(50*time.Microsecond), t0.Add(60*time.Microsecond), nil)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 10_000 {
		t.Errorf("the first lagging operation allocated %d bytes", n)
	}
	iv := r.Cut(PhaseMeasure, time.Now())
	if iv.Lag == nil || iv.Lag.TotalCount() != 1 || iv.Lag.Max() < 50 {
		t.Errorf("interval lag = %+v, want one value of 50 µs", iv.Lag)
	}
}

// Once an interval has seen an operation type, every shard has its
// histograms in both buffers: a client's first operation of that type,
// however late in the run, allocates nothing (in the open model a few
// clients do most operations, and lazily made histograms grew the memory
// for minutes).
func TestLateShardAllocatesNothing(t *testing.T) {
	r := NewRecorder([]string{"READ", "UPDATE"})
	busy, idle := r.Shard(), r.Shard()
	t0 := time.Now()
	busy.RecordReady(0, t0, t0, t0, t0.Add(time.Microsecond), nil)
	r.Cut(PhaseMeasure, time.Now())
	for range 2 { // both of idle's buffers
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		idle.RecordReady(0, t0, t0, t0, t0.Add(time.Microsecond), nil)
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 10_000 {
			t.Errorf("the idle shard's first READ allocated %d bytes", n)
		}
		if iv := r.Cut(PhaseMeasure, time.Now()); len(iv.Ops) != 1 || iv.Ops[0].Op != "READ" || iv.Ops[0].Count != 1 {
			t.Errorf("interval %+v, want one READ", iv.Ops)
		}
	}
	// UPDATE, never issued, has no histograms anywhere.
	for _, c := range []*Shard{busy, idle} {
		for _, b := range []*buffer{c.cur, c.spare} {
			if b.ops[1].resp != nil {
				t.Error("histograms made for an operation type never issued")
			}
		}
	}
}

package workers

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
)

// TestMain lets this test binary be a worker process (go test's re-exec
// trick): "worker --coordinator URL --index I --connect-timeout D" runs
// RunWorker as dbrig worker does, so the proof tests run real processes.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		fs := flag.NewFlagSet("worker", flag.ExitOnError)
		coord := fs.String("coordinator", "", "")
		index := fs.Int("index", -1, "")
		timeout := fs.Duration("connect-timeout", time.Minute, "")
		ca := fs.String("tls-ca", "", "")
		_ = fs.Parse(os.Args[2:])
		o := WorkerOptions{Coordinator: *coord, Index: *index, Token: os.Getenv(TokenEnv), ConnectTimeout: *timeout}
		if *ca != "" {
			var err error
			if o.TLS, err = ClientTLS(*ca); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		err := RunWorker(context.Background(), o)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// parts collects what the workers sent, before the merge.
type parts struct {
	mu     sync.Mutex
	phases map[string]*measure.Accumulator
	counts map[int]int64
}

func newParts() *parts {
	return &parts{phases: map[string]*measure.Accumulator{}, counts: map[int]int64{}}
}

func (p *parts) add(w int, iv measure.Interval) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := p.phases[iv.Phase]
	if a == nil {
		a = measure.NewAccumulator(iv.Phase)
		p.phases[iv.Phase] = a
	}
	a.Add(iv)
	if iv.Phase != measure.PhaseLoad {
		for _, o := range iv.Ops {
			p.counts[w] += o.Count
		}
	}
}

// distributed performs opts on n workers: in-process goroutines (inproc)
// or real processes of this test binary. kill, if set, is called with the
// workers' processes once the measure phase has started.
type setup struct {
	opts    experiment.Options
	n       int
	inproc  bool
	version func(i int) string
	onStart func(p *Procs)
	onPhase string // when onStart is called: at the first merged interval of this phase (default measure)
	// interrupt cancels the run's context (Ctrl-C) where onStart would be called.
	interrupt  bool
	tls        *tls.Config // the coordinator's (nil: cleartext)
	workerArgs []string    // more flags for worker processes (--tls-ca)
}

type result struct {
	out    *experiment.Outcome
	err    error
	store  *results.Store
	parts  *parts
	c      *Coordinator
	dbPath string
}

func distributed(t *testing.T, s setup) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s.opts.Store = filepath.Join(t.TempDir(), "results.db")
	plan, err := experiment.Resolve(s.opts)
	if err != nil {
		t.Fatal(err)
	}
	shares, err := plan.Shares(s.n)
	if err != nil {
		t.Fatal(err)
	}
	ps := newParts()
	c, err := Listen(Options{Shares: shares, Token: "t0ken", Ops: plan.Workload.Ops(), OnWorkerInterval: ps.add, TLS: s.tls})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	var procs *Procs
	if s.inproc {
		for i := 0; i < s.n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := RunWorker(ctx, WorkerOptions{Coordinator: c.URL(), Index: i, Token: "t0ken", ConnectTimeout: 10 * time.Second}); err != nil {
					t.Logf("worker %d: %v", i, err)
				}
			}()
		}
	} else {
		procs, err = Spawn(SpawnOptions{Exe: os.Args[0], Args: append([]string{"worker"}, s.workerArgs...), Coordinator: c.URL(), Token: "t0ken",
			ConnectTimeout: 20 * time.Second, Stderr: testWriter{t}}, s.n)
		if err != nil {
			t.Fatal(err)
		}
		defer procs.Stop(context.Background())
	}
	if err := c.WaitReady(ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	h := experiment.Hooks{Perform: c.Perform, Warn: func(err error) { t.Logf("warning: %v", err) }}
	if s.interrupt {
		s.onStart = func(*Procs) { cancel() }
	}
	if s.onStart != nil {
		h.Observer = &onMeasure{phase: s.onPhase, f: func() { s.onStart(procs) }}
	}
	out, err := experiment.Execute(ctx, plan, h)
	c.Close()
	wg.Wait()
	store, serr := results.Open(context.Background(), s.opts.Store)
	if serr != nil {
		t.Fatal(serr)
	}
	t.Cleanup(func() { store.Close() })
	return result{out: out, err: err, store: store, parts: ps, c: c, dbPath: s.opts.Store}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// onMeasure calls f once, at the first merged interval of phase
// (measure when "").
type onMeasure struct {
	phase string
	f     func()
	once  sync.Once
}

func (o *onMeasure) Interval(iv measure.Interval) {
	if iv.Phase == o.phase || (o.phase == "" && iv.Phase == measure.PhaseMeasure) {
		o.once.Do(o.f)
	}
}
func (o *onMeasure) Event(run.Event) {}

// checkExact compares the stored run with what the workers sent: every
// phase's counts and histograms are their sum, bucket by bucket.
func checkExact(t *testing.T, r result, wantMeasured int64) {
	t.Helper()
	ctx := context.Background()
	d, err := r.store.Run(ctx, r.out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sum := range d.Phases {
		a := r.parts.phases[sum.Phase]
		if a == nil {
			t.Errorf("stored phase %s: no worker sent intervals of it", sum.Phase)
			continue
		}
		want := a.Summary(nil)
		if sum.Overall.Count != want.Overall.Count {
			t.Errorf("phase %s: stored %d operations, the workers sent %d", sum.Phase, sum.Overall.Count, want.Overall.Count)
		}
		if !reflect.DeepEqual(sum.Overall.ResponseHist.Export().Counts, want.Overall.ResponseHist.Export().Counts) {
			t.Errorf("phase %s: the stored response histogram is not the sum of the workers' (bucket by bucket)", sum.Phase)
		}
		if !reflect.DeepEqual(sum.Overall.ServiceHist.Export().Counts, want.Overall.ServiceHist.Export().Counts) {
			t.Errorf("phase %s: the stored service histogram is not the sum of the workers'", sum.Phase)
		}
	}
	m, ok := d.Phase(measure.PhaseMeasure)
	if !ok {
		t.Fatal("no measure phase stored")
	}
	if wantMeasured > 0 && m.Overall.Count != wantMeasured {
		t.Errorf("measured %d operations, want %d (the shares' sum)", m.Overall.Count, wantMeasured)
	}
	// The merged intervals hold every operation exactly once.
	ivs, err := r.store.Intervals(ctx, r.out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var inIntervals int64
	for _, iv := range ivs {
		if iv.Phase == measure.PhaseMeasure && iv.Op == measure.OverallOp {
			inIntervals += iv.Count
		}
	}
	if inIntervals != m.Overall.Count {
		t.Errorf("measure intervals hold %d operations, the phase %d", inIntervals, m.Overall.Count)
	}
	ws, err := r.store.Workers(ctx, r.out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var perWorker int64
	for _, w := range ws {
		perWorker += w.Ops
		if w.Ops != r.parts.counts[w.Index] {
			t.Errorf("worker %d: stored %d operations, it sent %d", w.Index, w.Ops, r.parts.counts[w.Index])
		}
	}
	var runPhases int64
	for _, s := range d.Phases {
		if s.Phase != measure.PhaseLoad {
			runPhases += s.Overall.Count
		}
	}
	if perWorker != runPhases {
		t.Errorf("per-worker operations add up to %d, the merged run has %d", perWorker, runPhases)
	}
}

func nullOptions(extra ...string) experiment.Options {
	return experiment.Options{Driver: "null", PropFiles: []string{"workloada"}, Seed: 7,
		Props: append([]string{"recordcount=1000", "operationcount=4001", "threadcount=4"}, extra...)}
}

func TestInProcessExact(t *testing.T) {
	o := nullOptions()
	o.Warmup = 1500 * time.Millisecond
	r := distributed(t, setup{opts: o, n: 3, inproc: true})
	if r.err != nil || r.out == nil || r.out.Status != experiment.StatusDone {
		t.Fatalf("run: %v (outcome %+v)", r.err, r.out)
	}
	checkExact(t, r, 4001)
	ws, _ := r.store.Workers(context.Background(), r.out.RunID)
	var records int64
	for _, w := range ws {
		records += w.Records
		if w.Status != results.WorkerDone || w.PID != os.Getpid() || w.RTT <= 0 {
			t.Errorf("worker row %+v", w)
		}
	}
	if len(ws) != 3 || records != 1000 {
		t.Errorf("%d worker rows loading %d records, want 3 loading 1000", len(ws), records)
	}
	// The run's phase events read as one process's.
	d, err := r.store.Run(context.Background(), r.out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var seq []string
	for _, ev := range d.Events {
		seq = append(seq, ev.Kind+" "+ev.Name)
	}
	want := []string{"phase_start load", "phase_end load", "phase_start warmup", "phase_end warmup", "phase_start measure", "phase_end measure"}
	if !reflect.DeepEqual(seq, want) {
		t.Errorf("events %v, want %v", seq, want)
	}
}

func TestRefusals(t *testing.T) {
	plan, err := experiment.Resolve(nullOptions())
	if err != nil {
		t.Fatal(err)
	}
	shares, err := plan.Shares(3)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Listen(Options{Shares: shares, Token: "right"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	tests := []struct {
		name string
		o    WorkerOptions
		want string
	}{
		{"version", WorkerOptions{Index: 0, Token: "right", Version: "0.0.1-other"}, "worker is dbrig 0.0.1-other, coordinator is dbrig " + experiment.Version},
		{"token", WorkerOptions{Index: 0, Token: "wrong"}, "wrong or missing token"},
		{"no token", WorkerOptions{Index: 0}, "wrong or missing token"},
		{"index", WorkerOptions{Index: 3, Token: "right"}, "expected 0 to 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Coordinator, tt.o.ConnectTimeout = c.URL(), 5*time.Second
			err := RunWorker(ctx, tt.o)
			var re *RefusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("RunWorker = %v, want a refusal saying %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "right") {
				t.Error("the refusal shows the token")
			}
		})
	}
	// Worker 1 alone: the others are named as missing.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go RunWorker(wctx, WorkerOptions{Coordinator: c.URL(), Index: 1, Token: "right", ConnectTimeout: 5 * time.Second})
	err = c.WaitReady(ctx, 1500*time.Millisecond)
	var nc *NotConnectedError
	if !errors.As(err, &nc) || !reflect.DeepEqual(nc.Missing, []int{0, 2}) || !strings.Contains(err.Error(), "missing index 0, 2") {
		t.Errorf("WaitReady = %v, want workers 0 and 2 missing", err)
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens there now
	start := time.Now()
	err = RunWorker(context.Background(), WorkerOptions{Coordinator: "http://" + addr, Index: 0, ConnectTimeout: 700 * time.Millisecond})
	var ue *UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("RunWorker = %v, want *UnreachableError", err)
	}
	if d := time.Since(start); d < 700*time.Millisecond || d > 5*time.Second {
		t.Errorf("gave up after %v, want about the connect timeout (700ms)", d)
	}
}

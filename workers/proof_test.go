package workers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/workers/wire"
)

// redisOptions is workload A on the shared Redis server, in a table of the
// test's own (removed afterwards).
func redisOptions(t *testing.T, extra ...string) experiment.Options {
	addr := testenv.Need(t, "DBRIG_REDIS_ADDR")
	pw := os.Getenv("DBRIG_REDIS_PASSWORD")
	table := fmt.Sprintf("w12_%d_%d", os.Getpid(), time.Now().UnixNano())
	c := goredis.NewClient(&goredis.Options{Addr: addr, Password: pw})
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, table+"*", 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		for len(keys) > 0 {
			n := min(len(keys), 500)
			c.Del(ctx, keys[:n]...)
			keys = keys[n:]
		}
		c.Close()
	})
	props := []string{"redis.addr=" + addr, "table=" + table, "recordcount=2000", "threadcount=8"}
	if pw != "" {
		props = append(props, "redis.password="+pw)
	}
	return experiment.Options{Driver: "redis", PropFiles: []string{"workloada"}, Seed: 11, Props: append(props, extra...)}
}

func redisKeys(t *testing.T, table string) int64 {
	c := goredis.NewClient(&goredis.Options{Addr: os.Getenv("DBRIG_REDIS_ADDR"), Password: os.Getenv("DBRIG_REDIS_PASSWORD")})
	defer c.Close()
	n, err := c.ZCard(context.Background(), table+"#index").Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func tableOf(o experiment.Options) string {
	for _, p := range o.Props {
		if v, ok := strings.CutPrefix(p, "table="); ok {
			return v
		}
	}
	return ""
}

// TestProcessesRedis is the proof of issue 12 on this machine: four real
// worker processes against a real Redis. The merged run holds exactly the
// shares' operations, its histograms are the sum of the workers' bucket by
// bucket, and the load inserted exactly recordcount distinct keys.
func TestProcessesRedis(t *testing.T) {
	o := redisOptions(t, "operationcount=8002")
	r := distributed(t, setup{opts: o, n: 4})
	if r.err != nil || r.out == nil || r.out.Status != experiment.StatusDone {
		t.Fatalf("run: %v (outcome %+v)", r.err, r.out)
	}
	checkExact(t, r, 8002)
	if n := redisKeys(t, tableOf(o)); n != 2000 {
		t.Errorf("the load inserted %d distinct keys, want recordcount = 2000", n)
	}
	ws, err := r.store.Workers(context.Background(), r.out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	pids := map[int]bool{}
	for _, w := range ws {
		pids[w.PID] = true
		if w.Records != 500 || w.Status != results.WorkerDone || w.PID == os.Getpid() {
			t.Errorf("worker row %+v: want 500 records, done, its own process", w)
		}
		t.Logf("worker %d: pid %d, clock offset %v, rtt %v, %d ops", w.Index, w.PID, w.ClockOffset, w.RTT, w.Ops)
	}
	if len(pids) != 4 {
		t.Errorf("%d distinct worker processes, want 4", len(pids))
	}
}

// TestKilledWorker kills one of four worker processes mid-run: the loss is
// detected within a few seconds, the run goes on with the others, and the
// loss is in the events, the worker's row and the run's status.
func TestKilledWorker(t *testing.T) {
	var killed time.Time
	var victim int
	o := nullOptions("operationcount=0", "maxexecutiontime=4", "target=2000")
	r := distributed(t, setup{opts: o, n: 4, onStart: func(p *Procs) {
		victim = p.PIDs()[2]
		killed = time.Now()
		if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
			t.Errorf("kill worker 2: %v", err)
		}
	}})
	var lost *LostError
	if !errors.As(r.err, &lost) || len(lost.Lost) != 1 || lost.Lost[0].Index != 2 {
		t.Fatalf("run error %v, want worker 2 lost", r.err)
	}
	if r.out == nil || r.out.Status != experiment.StatusFailed {
		t.Fatalf("outcome %+v, want a failed status that says why", r.out)
	}
	ctx := context.Background()
	d, err := r.store.Run(ctx, r.out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Message, "worker 2") || !strings.Contains(d.Message, "lost") {
		t.Errorf("stored message %q does not name the lost worker", d.Message)
	}
	found := false
	for _, ev := range d.Events {
		if ev.Kind == EventWorkerLost && ev.Name == "worker 2" {
			found = true
			t.Logf("worker 2 SIGKILLed; loss recorded %v later", ev.Time.Sub(killed))
			if lag := ev.Time.Sub(killed); lag < 0 || lag > 4*time.Second {
				t.Errorf("loss noticed %v after the kill, want within a few seconds", lag)
			}
		}
	}
	if !found {
		t.Errorf("no worker_lost event for worker 2 in %+v", d.Events)
	}
	ws, err := r.store.Workers(ctx, r.out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		want := results.WorkerDone
		if w.Index == 2 {
			want = results.WorkerLost
			if w.LostAt.IsZero() || w.PID != victim {
				t.Errorf("lost worker's row %+v: want its pid %d and when it was lost", w, victim)
			}
		}
		if w.Status != want {
			t.Errorf("worker %d status %s, want %s", w.Index, w.Status, want)
		}
	}
	// The three others ran on to the end: the measure phase lasted its 4 s.
	m, ok := d.Phase(measure.PhaseMeasure)
	if !ok || m.End.Sub(m.Start) < 3500*time.Millisecond {
		t.Errorf("measure phase %v–%v, want the full 4 s from the other workers", m.Start, m.End)
	}
	checkExact(t, r, 0)
}

// TestCoordinatorLost: a worker whose coordinator vanishes (its
// connections cut, as when it is SIGKILLed) stops and exits non-zero.
func TestCoordinatorLost(t *testing.T) {
	plan, err := experiment.Resolve(nullOptions())
	if err != nil {
		t.Fatal(err)
	}
	shares, err := plan.Shares(1)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Listen(Options{Shares: shares})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := Spawn(SpawnOptions{Exe: os.Args[0], Args: []string{"worker"}, Coordinator: c.URL(), ConnectTimeout: 10 * time.Second}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(context.Background())
	if err := c.WaitReady(context.Background(), 20*time.Second); err != nil {
		t.Fatal(err)
	}
	c.srv.Close() // every connection cut at once, no goodbye
	deadline := time.Now().Add(wire.LostAfter + 3*time.Second)
	for time.Now().Before(deadline) {
		if done, code := p.Exited(0); done {
			if code == 0 {
				t.Error("the worker exited 0 after losing its coordinator")
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("the worker (pid %d) still runs %v after its coordinator vanished", p.PIDs()[0], wire.LostAfter+3*time.Second)
}

// TestKilledWhileLoading: a worker lost in the load phase leaves the data
// set partial, so the run phases do not start, and the run says why.
func TestKilledWhileLoading(t *testing.T) {
	o := experiment.Options{Driver: "sim", PropFiles: []string{"workloada"}, Seed: 5, LoadBatch: 1,
		Props: []string{"recordcount=6000", "threadcount=2", "sim.latency=2ms", "operationcount=100"}}
	r := distributed(t, setup{opts: o, n: 2, onPhase: measure.PhaseLoad, onStart: func(p *Procs) {
		if err := syscall.Kill(p.PIDs()[1], syscall.SIGKILL); err != nil {
			t.Errorf("kill worker 1: %v", err)
		}
	}})
	if r.err == nil || !strings.Contains(r.err.Error(), "data set is partial") || r.out == nil || r.out.Status != experiment.StatusFailed {
		t.Fatalf("run: %v (outcome %+v), want failed: partial data set", r.err, r.out)
	}
	// It says which keys: worker 1's share is the second half.
	if !strings.Contains(r.err.Error(), "key numbers 3000 to 5999 (its share, insertstart=3000 insertcount=3000) are partly missing") {
		t.Errorf("run error %q does not name worker 1's key range", r.err)
	}
	d, err := r.store.Run(context.Background(), r.out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Message, "key numbers 3000 to 5999") {
		t.Errorf("stored message %q does not name the missing key range", d.Message)
	}
	if _, ok := d.Phase(measure.PhaseMeasure); ok {
		t.Error("a measure phase ran on a partial data set")
	}
	if l, ok := d.Phase(measure.PhaseLoad); !ok || l.Records >= 6000 {
		t.Errorf("load phase %+v, want a partial one", l)
	}
}

// TestSilentWorker stops one worker (SIGSTOP): its connection stays open
// but nothing comes, not even heartbeats, so it is lost after
// wire.LostAfter, and the others finish the run.
func TestSilentWorker(t *testing.T) {
	var stopped time.Time
	o := nullOptions("operationcount=0", "maxexecutiontime=6", "target=1000")
	r := distributed(t, setup{opts: o, n: 2, onStart: func(p *Procs) {
		pid := p.PIDs()[0]
		stopped = time.Now()
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Errorf("stop worker 0: %v", err)
		}
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	}})
	var lost *LostError
	if !errors.As(r.err, &lost) || len(lost.Lost) != 1 || lost.Lost[0].Index != 0 {
		t.Fatalf("run error %v, want worker 0 lost", r.err)
	}
	w := lost.Lost[0]
	if !strings.Contains(w.Detail, "silent") {
		t.Errorf("detail %q, want it to say the worker went silent", w.Detail)
	}
	t.Logf("worker 0 SIGSTOPped; lost %v later", w.LostAt.Sub(stopped))
	if d := w.LostAt.Sub(stopped); d < wire.LostAfter-500*time.Millisecond || d > wire.LostAfter+3*time.Second {
		t.Errorf("lost %v after it stopped, want about %v", d, wire.LostAfter)
	}
	checkExact(t, r, 0)
}

// TestInterrupted is Ctrl-C at the coordinator: the workers are told to
// stop, send what they measured, and the run is stored as interrupted.
func TestInterrupted(t *testing.T) {
	start := time.Now()
	r := distributed(t, setup{opts: nullOptions("operationcount=0", "maxexecutiontime=30", "target=1000"), n: 2, interrupt: true})
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the interrupted run took %v, want it to stop within the grace period", took)
	}
	if !errors.Is(r.err, context.Canceled) || r.out == nil || r.out.Status != experiment.StatusInterrupted {
		t.Fatalf("run: %v (outcome %+v), want interrupted", r.err, r.out)
	}
	ws, err := r.store.Workers(context.Background(), r.out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.Status != results.WorkerInterrupted {
			t.Errorf("worker %d: %s, want interrupted", w.Index, w.Status)
		}
	}
	checkExact(t, r, 0)
}

package workers

import (
	"bytes"
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/report"
)

// TestSlowWorkerFlagged slows one of three real worker processes (SIGSTOP
// for 1.5 s of a 4 s measure phase, well inside the liveness limit): the
// run stays whole, its stored per-worker figures show the stall, and the
// diagnosis the report and dashboard show names that worker and no other
// one as behind on its throughput.
func TestSlowWorkerFlagged(t *testing.T) {
	const slow = 1
	stalled := make(chan struct{})
	o := nullOptions("operationcount=0", "maxexecutiontime=4", "target=900")
	r := distributed(t, setup{opts: o, n: 3, onStart: func(p *Procs) {
		pid := p.PIDs()[slow]
		go func() {
			defer close(stalled)
			time.Sleep(300 * time.Millisecond)
			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
				t.Errorf("stop worker %d: %v", slow, err)
				return
			}
			time.Sleep(1500 * time.Millisecond)
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				t.Errorf("continue worker %d: %v", slow, err)
			}
		}()
	}})
	<-stalled
	if r.err != nil || r.out == nil || r.out.Status != experiment.StatusDone {
		t.Fatalf("run: %v (outcome %+v)", r.err, r.out)
	}
	ctx := context.Background()
	set, err := analysis.Read(ctx, r.store, []int64{r.out.RunID})
	if err != nil {
		t.Fatal(err)
	}
	w := set.Workers[0]
	if w == nil || w.Phase != measure.PhaseMeasure || len(w.Workers) != 3 {
		t.Fatalf("workers diagnosis %+v: want the measure phase of 3 workers", w)
	}
	for _, f := range w.Workers {
		t.Logf("worker %d: %d ops, %.0f ops/s of %.0f, p50 %dµs p99 %dµs, lag p99 %dµs, behind %v %q",
			f.Index, f.Ops, f.OpsPerSec, f.Expected, f.RespP50US, f.RespP99US, f.LagP99US, f.Behind, f.Reasons)
		if f.RespP99US <= 0 || f.Target <= 0 || f.Ops <= 0 {
			t.Errorf("worker %d: p99 %d µs, target %.0f, %d ops: want each stored", f.Index, f.RespP99US, f.Target, f.Ops)
		}
	}
	if !w.Workers[slow].Behind {
		t.Fatalf("the stalled worker %d is not flagged: %+v", slow, w.Workers[slow])
	}
	// Its response times include the stall: its p99 is above a second,
	// the others' far below.
	if w.Workers[slow].RespP99US < 500_000 {
		t.Errorf("stalled worker's p99 = %d µs, want the 1.5 s stall in it", w.Workers[slow].RespP99US)
	}
	for _, f := range w.Workers {
		if f.Index != slow && f.RespP99US >= w.Workers[slow].RespP99US {
			t.Errorf("worker %d p99 %d µs is not below the stalled worker's %d µs", f.Index, f.RespP99US, w.Workers[slow].RespP99US)
		}
	}
	named := false
	for _, fl := range w.Flags {
		if strings.HasPrefix(fl, "worker 1 ") || strings.HasPrefix(fl, "worker 1's ") {
			named = true
		} else if strings.Contains(fl, "fell behind") {
			t.Errorf("flag %q names a worker that was not stalled", fl)
		}
	}
	if !named {
		t.Errorf("flags %q do not name worker %d", w.Flags, slow)
	}
	var html bytes.Buffer
	if err := report.RenderHTML(&html, set); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), w.Flags[0]) && !strings.Contains(html.String(), strings.ReplaceAll(w.Flags[0], "'", "&#39;")) {
		t.Errorf("the HTML report does not show the flag %q", w.Flags[0])
	}
}

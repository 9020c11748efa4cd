package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/run"
)

// dbrig selftest --json measures what it says: every case ran, the counts
// add up to the rates asked for, and the lag is never more than the
// response time it is part of.
func TestSelftestJSON(t *testing.T) {
	code, out, errOut := dbrig(t, context.Background(), "selftest", "--json", "--duration", "300ms", "--rates", "500,2000", "--clients", "4", "--floor", "200ms", "--steadiness", "1s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r run.SelftestResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(r.Ceiling) != 2 || r.Ceiling[0].Clients != 1 || r.Ceiling[1].Clients != 4 {
		t.Fatalf("ceiling cases %+v, want 1 and 4 clients", r.Ceiling)
	}
	for _, c := range r.Ceiling {
		if c.Ops <= 0 || c.OpsPerS <= 0 || c.CPUPerOpNS <= 0 {
			t.Errorf("ceiling %+v: want operations, a rate and CPU per operation", c)
		}
	}
	if len(r.Open) != 2 || r.Open[0].Target != 500 || r.Open[1].Target != 2000 {
		t.Fatalf("open cases %+v, want 500 and 2000 ops/s", r.Open)
	}
	for _, p := range r.Open {
		// 300 ms at the target: the phase lasts its time, so a rate far off
		// means operations were lost or invented, not a slow machine.
		if p.Achieved+float64(p.Dropped)/0.3 < 0.9*p.Target || p.Achieved > 1.01*p.Target {
			t.Errorf("%g ops/s: achieved %g (+%d dropped)", p.Target, p.Achieved, p.Dropped)
		}
		// The window is at least the spin wait and at most twice it.
		if p.SpinWindowMax < 200 || p.SpinWindowMax > 400 || p.LateAfterSleep < 0 || p.LateAfterSpin < 0 {
			t.Errorf("%g ops/s: spin window %d µs, late %d/%d", p.Target, p.SpinWindowMax, p.LateAfterSleep, p.LateAfterSpin)
		}
		if p.LagP50 > p.LagP99 || p.LagP99 > p.LagMax || p.LagP50 > p.RespP50+1 {
			t.Errorf("%g ops/s: lag p50 %d p99 %d max %d, response p50 %d: inconsistent", p.Target, p.LagP50, p.LagP99, p.LagMax, p.RespP50)
		}
	}
	f := r.Floor
	if f == nil {
		t.Fatal("no machine floor")
	}
	for name, h := range map[string]run.HiccupsUS{"sleep": f.Sleep, "spin": f.Spin} {
		// 200 ms in windows of 1 ms (fewer if the machine stalled).
		if h.Samples < 20 || h.Samples > 200 || h.P50 > h.P99 || h.P99 > h.P999 || h.P999 > h.Max {
			t.Errorf("floor %s %+v: want ≤ 200 samples and ordered percentiles", name, h)
		}
	}
	if f.IntervalUS != 1000 || f.SleepsOverSpinWaitPct < 0 || f.SleepsOverSpinWaitPct > 100 {
		t.Errorf("floor %+v", f)
	}
	if r.SpinWait != "200µs" {
		t.Errorf("spin wait %q, want the default 200µs", r.SpinWait)
	}
	// 1 s: two windows of 250 ms of each kind, less each kind's warmup.
	if m := r.Steadiness; m == nil || m.Windows != 1 || !(m.Cache.Min > 0) || !(m.ALU.Min > 0) {
		t.Errorf("machine steadiness %+v: want one window of each kind with work done", r.Steadiness)
	}
}

func TestSelftestBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--rates", "1000,x"},
		{"--rates", "-5"},
		{"--duration", "1ms"},
		{"--clients", "0"},
		{"--spin-wait", "-1us"},
		{"--soak", "10ms"},
		{"--heap-profile", "/tmp/x"},
		{"--floor", "5ms"},
		{"--steadiness", "500ms"},
		{"extra"},
	} {
		code, _, errOut := dbrig(t, context.Background(), append([]string{"selftest"}, args...)...)
		if code != 2 || !strings.Contains(errOut, "selftest") {
			t.Errorf("selftest %v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}

// --soak prints one memory sample per interval, as JSON lines.
func TestSelftestSoak(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "heap")
	code, out, errOut := dbrig(t, context.Background(), "selftest", "--soak", "1s", "--every", "250ms", "--soak-rate", "2000", "--clients", "2", "--json", "--heap-profile", prof)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var n int
	var last run.SoakSample
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var s run.SoakSample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if s.RSSBytes <= 0 || s.AnonBytes <= 0 || s.AnonBytes > s.RSSBytes || s.HeapBytes == 0 || s.Ops < last.Ops {
			t.Errorf("sample %+v after %+v", s, last)
		}
		last, n = s, n+1
	}
	if n < 4 || last.Ops < 1500 {
		t.Errorf("%d samples, last %+v; want ~5 and ~2000 operations", n, last)
	}
	profs, _ := filepath.Glob(prof + "-*s.pprof")
	if len(profs) != n {
		t.Errorf("%d heap profiles %v for %d samples", len(profs), profs, n)
	}
	for _, p := range profs {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("heap profile %s: %v", p, err)
		}
	}
}

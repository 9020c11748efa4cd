package nodestat

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A real line from a 6.x kernel, with an awkward command name.
const statLine = "4242 (etcd (m1) x) S 1 4242 4242 0 -1 4194560 9620 0 0 0 1234 567 8 9 20 0 12 0 987654 1306279936 7040 18446744073709551615 1 1 0 0 0 0 0 0 1073745144 0 0 0 17 3 0 0 0 0 0 0 0 0 0 0 0 0 0\n"

func TestParseStat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Stat
		wantErr bool
	}{
		{"parens in comm", statLine, Stat{PID: 4242, Comm: "etcd (m1) x", State: 'S', PPID: 1, PGID: 4242,
			UTime: 1234, STime: 567, CUTime: 8, CSTime: 9, StartTime: 987654, RSSPages: 7040}, false},
		{"zombie", "7 (a) Z 1 7 7 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 0 0 0", Stat{PID: 7, Comm: "a", State: 'Z', PPID: 1, PGID: 7,
			UTime: 5, STime: 6, StartTime: 100}, false},
		{"truncated", "7 (a) S 1 7 7", Stat{}, true},
		{"no comm", "7 a S 1 7 7", Stat{}, true},
		{"bad number", "7 (a) S x 7 7 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 0 0 0", Stat{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStat([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseIO(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    IO
		wantErr bool
	}{
		{"full", "rchar: 100\nwchar: 200\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n",
			IO{ReadBytes: 4096, WriteBytes: 8192, RChar: 100, WChar: 200}, false},
		{"empty", "", IO{}, true},
		{"bad", "read_bytes: x\n", IO{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseIO([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseStatus(t *testing.T) {
	full := "Name:\tredis-server\nState:\tS (sleeping)\nVmRSS:\t   10240 kB\nThreads:\t5\nvoluntary_ctxt_switches:\t150\nnonvoluntary_ctxt_switches:\t7\n"
	tests := []struct {
		name    string
		in      string
		want    Status
		wantErr bool
	}{
		{"full", full, Status{VoluntaryCtxt: 150, InvoluntaryCtxt: 7, RSSBytes: 10240 * 1024, Threads: 5}, false},
		{"kernel thread (no VmRSS)", "Name:\tkthreadd\nThreads:\t1\nvoluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t0\n",
			Status{VoluntaryCtxt: 1, Threads: 1}, false},
		{"no switches", "Name:\tx\n", Status{}, true},
		{"bad", "voluntary_ctxt_switches:\tmany\n", Status{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStatus([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// fakeProc writes a /proc tree with one process.
func fakeProc(t *testing.T, pid int, stat string) string {
	t.Helper()
	root := t.TempDir()
	d := filepath.Join(root, strconv.Itoa(pid))
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(d, "fd"), 0o755))
	for _, n := range []string{"0", "1", "2"} {
		must(os.WriteFile(filepath.Join(d, "fd", n), nil, 0o644))
	}
	must(os.WriteFile(filepath.Join(d, "stat"), []byte(stat), 0o644))
	must(os.WriteFile(filepath.Join(d, "status"), []byte("VmRSS:\t4 kB\nvoluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t2\n"), 0o644))
	must(os.WriteFile(filepath.Join(d, "io"), []byte("rchar: 1\nwchar: 2\nread_bytes: 3\nwrite_bytes: 4\n"), 0o644))
	return root
}

// A target that exits is reported once as gone, then dropped: no error storm.
func TestSamplerGoneOnce(t *testing.T) {
	root := fakeProc(t, 4242, statLine)
	s := Sampler{Proc: Proc{Root: root}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var got []Sample
	n := 0
	err := s.Run(ctx, 10*time.Millisecond, []Target{{Name: "m1", PID: 4242}}, func(sm Sample) {
		got = append(got, sm)
		n++
		if n == 2 { // the process exits after two samples
			os.RemoveAll(filepath.Join(root, "4242"))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("Run did not return after its only target was gone")
	}
	if len(got) != 3 || !got[2].Gone || got[0].Gone || got[1].Gone {
		t.Fatalf("want 2 samples then one gone, got %+v", got)
	}
	s0 := got[0]
	if s0.Node != "m1" || s0.RSS != 4096 || s0.FDs != 3 || s0.Total.WriteBytes != 4 || s0.Total.InvoluntaryCtxt != 2 || s0.Err != nil {
		t.Errorf("sample figures: %+v", s0)
	}
}

func TestSamplerZombieIsGone(t *testing.T) {
	root := fakeProc(t, 7, "7 (a) Z 1 7 7 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 0 0 0")
	var got []Sample
	err := Sampler{Proc: Proc{Root: root}}.Run(context.Background(), time.Millisecond, []Target{{Name: "z", PID: 7}}, func(s Sample) { got = append(got, s) })
	if err != nil || len(got) != 1 || !got[0].Gone {
		t.Fatalf("err %v, samples %+v", err, got)
	}
}

func TestStatGoneIsErrGone(t *testing.T) {
	_, err := Proc{Root: t.TempDir()}.Stat(1)
	if !errors.Is(err, ErrGone) {
		t.Fatalf("err = %v, want ErrGone", err)
	}
}

// Live: the user CPU the sampler reads for this test process (a busy
// goroutine keeps it up) agrees with the kernel's own account of it,
// getrusage, over the same intervals. Compared rather than held against a
// fixed floor: on a loaded machine the busy loop may get little CPU, and the
// two must agree all the same.
func TestLiveSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SKIPPED: /proc is Linux-only")
	}
	var stop atomic.Bool
	defer stop.Store(true)
	go func() {
		x := 0
		for !stop.Load() {
			x++
		}
		_ = x
	}()
	userTime := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var samples []Sample
	var rusage []time.Duration // user CPU by getrusage when each sample arrived
	err := Run(ctx, 300*time.Millisecond, []Target{Self()}, func(s Sample) {
		samples = append(samples, s)
		rusage = append(rusage, userTime())
		if len(samples) == 3 {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		t.Logf("%s pid %d: user %.1f%% sys %.1f%% rss %d fds %d ctx %d/%d err %v",
			s.Node, s.PID, s.UserPct, s.SystemPct, s.RSS, s.FDs, s.Delta.VoluntaryCtxt, s.Delta.InvoluntaryCtxt, s.Err)
		if s.Gone || s.Err != nil {
			t.Fatalf("sample of ourselves: %+v", s)
		}
		if s.RSS == 0 || s.FDs < 3 || s.Procs != 1 || s.Elapsed <= 0 {
			t.Errorf("implausible sample %+v", s)
		}
		if i == 0 {
			continue
		}
		got := time.Duration(s.UserPct / 100 * float64(s.Elapsed))
		want := rusage[i] - rusage[i-1]
		// /proc counts in clock ticks (10 ms): allow two of them, and the
		// few ms between the sampler's read and this callback.
		if diff := got - want; diff > 30*time.Millisecond+want/5 || -diff > 30*time.Millisecond+want/5 {
			t.Errorf("sample %d: user CPU %v by the sampler (%.1f%% of %v), %v by getrusage", i, got, s.UserPct, s.Elapsed, want)
		}
	}
	if total := rusage[len(rusage)-1] - rusage[0]; total == 0 {
		t.Errorf("no user CPU at all over %d samples although a goroutine spins", len(samples))
	}
}

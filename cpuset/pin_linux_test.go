package cpuset

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// lastCPU is a one-CPU set that is not the whole machine, or skips.
func lastCPU(t *testing.T) Set {
	t.Helper()
	on, err := Online()
	if err != nil {
		t.Fatal(err)
	}
	if len(on) < 2 {
		t.Skipf("SKIPPED: one usable CPU (%s): a pinned set would be the whole machine", on)
	}
	return Set{on[len(on)-1]}
}

// A child started pinned runs on the set from its start, and the forking
// thread gets its own mask back.
func TestStartPinned(t *testing.T) {
	set := lastCPU(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, _ := Of(0)
	cmd := exec.Command("sleep", "5")
	if err := StartPinned(set, cmd.Start); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	got, err := Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, set) {
		t.Errorf("child runs on CPUs %s, want %s", got, set)
	}
	if after, _ := Of(0); !slices.Equal(after, before) {
		t.Errorf("the forking thread's CPUs %s after the start, %s before", after, before)
	}
	if err := StartPinned(Set{1023}, exec.Command("true").Start); err == nil {
		t.Error("CPU 1023: started anyway, want an error naming the usable CPUs")
	}
}

// PinSelf pins every thread, those running and those the runtime starts
// afterwards, and GOMAXPROCS. In a child process of the test binary, so
// the other tests keep every CPU.
func TestPinSelf(t *testing.T) {
	if v := os.Getenv("CPUSET_PIN_CHILD"); v != "" {
		n, _ := strconv.Atoi(v)
		if err := PinSelf(Set{n}); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		for range 8 { // blocked syscalls make the runtime start threads
			go func() {
				runtime.LockOSThread()
				var ts unix.Timespec
				ts.Nsec = 20e6
				unix.Nanosleep(&ts, nil)
				done <- struct{}{}
			}()
		}
		for range 8 {
			<-done
		}
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			tid, _ := strconv.Atoi(task.Name())
			got, err := Of(tid)
			if err == nil && !slices.Equal(got, Set{n}) {
				t.Errorf("thread %d runs on %s, want %d", tid, got, n)
			}
		}
		if p := runtime.GOMAXPROCS(0); p != 2 {
			t.Errorf("GOMAXPROCS %d, want 2 (one CPU, but a P for a goroutine in a syscall)", p)
		}
		t.Logf("%d threads on CPU %d", len(tasks), n)
		return
	}
	set := lastCPU(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestPinSelf$", "-test.v")
	cmd.Env = append(os.Environ(), "CPUSET_PIN_CHILD="+strconv.Itoa(set[0]))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "threads on CPU") {
		t.Fatalf("the child did not check its threads:\n%s", out)
	}
	t.Logf("child:\n%s", out)
}

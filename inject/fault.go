// Package inject holds the faults dbrig injects while a benchmark runs, one
// file per fault behind one small interface, the way toxiproxy keeps its
// toxics. A fault acts on processes (the nodes of a local cluster); proxy/
// is the network side (a loopback TCP proxy that cuts or delays links).
package inject

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Fault is one kind of fault on one set of processes.
type Fault interface {
	// Name is the kind, as an experiment file writes it (kill, pause, …).
	Name() string
	// Inject applies the fault to the processes; it returns once applied.
	Inject(ctx context.Context, pids []int) error
	// Heal undoes it and checks that it is undone (a paused process runs
	// again). Faults that cannot be undone here (kill) return ErrNoHeal.
	Heal(ctx context.Context, pids []int) error
}

// ErrNoHeal is returned by Heal for faults that only a restart undoes.
var ErrNoHeal = errors.New("this fault is not healed by dbrig (the node stays down)")

// ErrUnknownFault is wrapped by New for a kind it does not know.
var ErrUnknownFault = errors.New("unknown fault")

// Kinds lists the faults New knows.
func Kinds() []string { return []string{"kill", "stop", "pause"} }

// New returns the fault of a kind. grace bounds stop's wait before it kills.
func New(kind string, grace time.Duration) (Fault, error) {
	switch kind {
	case "kill":
		return Kill{}, nil
	case "stop":
		return Stop{Grace: grace}, nil
	case "pause":
		return Pause{}, nil
	}
	return nil, fmt.Errorf("%w %q (expected one of %s)", ErrUnknownFault, kind, strings.Join(Kinds(), ", "))
}

// signal sends sig to every pid; a process that is already gone is fine.
func signal(pids []int, sig syscall.Signal) error {
	var errs []error
	for _, pid := range pids {
		if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, fmt.Errorf("signal %v to pid %d: %w", sig, pid, err))
		}
	}
	return errors.Join(errs...)
}

// state is the process state letter of /proc/PID/stat (R, S, T, Z …), or
// "" when the process is gone.
func state(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

// gone tells whether pid has exited (or is a zombie waiting to be reaped).
func gone(pid int) bool {
	st := state(pid)
	return st == "" || st == "Z" || st == "X"
}

// waitFor polls cond every 10 ms until it holds or ctx ends.
func waitFor(ctx context.Context, cond func() bool) error {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

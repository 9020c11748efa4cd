// Package inject holds the faults dbrig injects while a benchmark runs, one
// file per fault behind one small interface, the way toxiproxy keeps its
// toxics. A fault acts on processes (kill, stop, pause: the nodes of a local
// cluster) or on network links (partition, delay, bandwidth, drop): the
// loopback TCP proxies of proxy/ that a node's clients and peers go through.
// A fault with settings checks them in its own constructor (NewDelay,
// NewBandwidth, NewDrop, NewRestart, NewCommand).
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

	"github.com/dbrig/dbrig/inject/proxy"
)

// Fault is one kind of fault on one target.
type Fault interface {
	// Name is the kind, as an experiment file writes it (kill, pause, …).
	Name() string
	// Inject applies the fault to the target; it returns once applied.
	Inject(ctx context.Context, t Target) error
	// Heal undoes it and checks that it is undone (a paused process runs
	// again, a link forwards again). Faults that cannot be undone here
	// (kill) return ErrNoHeal.
	Heal(ctx context.Context, t Target) error
}

// Target is what a fault acts on: processes for the process faults, links
// for the network faults.
type Target struct {
	PIDs  []int
	Links []Link
	// For add-node and remove-node (membership.go): the cluster, the
	// target nodes' names, and where to say what was done.
	Members Membership
	Nodes   []string
	Note    func(string)
}

// Link is the traffic through one proxy: every connection (From "") or
// those from one source (a peer node's name).
type Link struct {
	Proxy *proxy.Proxy
	From  string
	Name  string // for people: "etcd2 → etcd1 (peer)"
}

// Network tells whether a kind of fault acts on links (it needs a cluster
// whose traffic goes through dbrig's proxies).
func Network(kind string) bool {
	switch kind {
	case "partition", "delay", "bandwidth", "drop":
		return true
	}
	return false
}

// ErrNoHeal is returned by Heal for faults that only a restart undoes.
var ErrNoHeal = errors.New("this fault is not healed by dbrig (the node stays down)")

// ErrUnknownFault is wrapped for a kind of fault nobody knows.
var ErrUnknownFault = errors.New("unknown fault")

// ErrBadOption is wrapped by a fault's constructor (NewDelay, NewDrop …)
// for a setting the fault cannot take.
var ErrBadOption = errors.New("bad fault setting")

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

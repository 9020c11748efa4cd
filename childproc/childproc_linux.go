package childproc

import (
	"os/exec"
	"runtime"

	"github.com/dbrig/dbrig/cpuset"
	"syscall"
)

// Attr puts a child in its own process group (so a stop reaches what it
// forks, and a Ctrl-C to dbrig's terminal does not reach it) and, with
// dieWithParent, asks the kernel to SIGKILL it when its parent dies.
// Without dieWithParent the child gets its own session: it is meant to
// outlive dbrig (a detached cluster).
func Attr(dieWithParent bool) *syscall.SysProcAttr {
	if !dieWithParent {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// Spawner starts processes from one goroutine locked to its OS thread.
//
// Why: the kernel sends the parent-death signal when the *thread* that
// forked the child exits, not when the process does. Go's scheduler may run
// exec.Cmd.Start on any thread, and the runtime ends a thread when a
// goroutine that locked it exits without unlocking; a child started there
// would be killed at a random moment. Starting every child from a thread
// held locked for the Spawner's whole life avoids that. On Close the
// goroutine exits still locked, so the runtime ends its thread: a last net
// that kills any child that somehow survived its owner's stop.
type Spawner struct {
	reqs chan spawnReq
}

type spawnReq struct {
	cmd  *exec.Cmd
	cpus cpuset.Set
	err  chan error
}

// NewSpawner starts the spawning goroutine; locked false is for children
// that are meant to outlive dbrig (no thread needs to stay).
func NewSpawner(locked bool) *Spawner {
	s := &Spawner{reqs: make(chan spawnReq)}
	go func() {
		if locked {
			runtime.LockOSThread() // never unlocked: see the type's comment
		}
		for r := range s.reqs {
			r.err <- cpuset.StartPinned(r.cpus, r.cmd.Start)
		}
	}()
	return s
}

// Start starts cmd from the spawner's thread.
func (s *Spawner) Start(cmd *exec.Cmd) error { return s.StartOn(cmd, nil) }

// StartOn starts cmd from the spawner's thread, pinned to cpus (every CPU
// when empty): the child and whatever it starts inherit them.
func (s *Spawner) StartOn(cmd *exec.Cmd, cpus cpuset.Set) error {
	r := spawnReq{cmd: cmd, cpus: cpus, err: make(chan error, 1)}
	s.reqs <- r
	return <-r.err
}

// Close ends the spawner (and its thread); Start may not be called after.
func (s *Spawner) Close() { close(s.reqs) }

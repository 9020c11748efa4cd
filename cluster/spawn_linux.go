package cluster

import (
	"os/exec"
	"runtime"
	"syscall"
)

// sysProcAttr puts a node in its own process group (so a stop reaches what
// it forks, and a Ctrl-C to dbrig's terminal does not reach it), and, unless
// detached, asks the kernel to SIGKILL it when its parent dies, so nodes do
// not outlive dbrig even when dbrig is SIGKILLed and runs no cleanup.
func sysProcAttr(dieWithParent bool) *syscall.SysProcAttr {
	if !dieWithParent {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// spawner starts processes from one goroutine locked to its OS thread.
//
// Why: the kernel sends the parent-death signal when the *thread* that
// forked the child exits, not when the process does. Go's scheduler may run
// exec.Cmd.Start on any thread, and the runtime ends a thread when a
// goroutine that locked it exits without unlocking; a child started there
// would be killed at a random moment. Starting every child from a thread
// that we hold locked for the cluster's whole life avoids that. When the
// cluster is down, the goroutine exits still locked, so the runtime ends its
// thread: a last net that kills any child that somehow survived Down.
type spawner struct {
	reqs chan spawnReq
}

type spawnReq struct {
	cmd *exec.Cmd
	err chan error
}

func newSpawner(locked bool) *spawner {
	s := &spawner{reqs: make(chan spawnReq)}
	go func() {
		if locked {
			runtime.LockOSThread() // never unlocked: see the type's comment
		}
		for r := range s.reqs {
			r.err <- r.cmd.Start()
		}
	}()
	return s
}

func (s *spawner) start(cmd *exec.Cmd) error {
	r := spawnReq{cmd: cmd, err: make(chan error, 1)}
	s.reqs <- r
	return <-r.err
}

func (s *spawner) close() { close(s.reqs) }

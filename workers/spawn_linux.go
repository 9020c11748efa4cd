package workers

import (
	"os/exec"
	"runtime"
	"syscall"
)

// sysProcAttr puts a worker in its own process group (a Ctrl-C at the
// terminal reaches the coordinator, which stops the workers itself) and
// asks the kernel to SIGKILL it when the thread that started it dies: see
// spawner.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// spawner starts processes from one goroutine locked to its OS thread: the
// parent-death signal follows the forking *thread*, and a locked thread
// lives as long as the spawner (the same reasoning as cluster's spawner).
// When closed, the goroutine exits still locked, so its thread ends: a last
// net that kills any worker that somehow survived Stop.
type spawner struct{ reqs chan spawnReq }

type spawnReq struct {
	cmd *exec.Cmd
	err chan error
}

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan spawnReq)}
	go func() {
		runtime.LockOSThread() // never unlocked: see the type's comment
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

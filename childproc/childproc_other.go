//go:build !linux

package childproc

import (
	"os/exec"
	"syscall"

	"github.com/dbrig/dbrig/cpuset"
)

// Attr: without Linux's parent-death signal, children outlive a dbrig that
// is SIGKILLed; their owners stop them by PID (cluster state files, the
// workers' lost-coordinator check).
func Attr(dieWithParent bool) *syscall.SysProcAttr {
	if !dieWithParent {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true}
}

// Spawner starts processes; outside Linux any thread will do.
type Spawner struct{}

func NewSpawner(bool) *Spawner             { return &Spawner{} }
func (*Spawner) Start(cmd *exec.Cmd) error { return cmd.Start() }

// StartOn starts cmd pinned to cpus (refused here unless empty).
func (*Spawner) StartOn(cmd *exec.Cmd, cpus cpuset.Set) error {
	return cpuset.StartPinned(cpus, cmd.Start)
}
func (*Spawner) Close() {}

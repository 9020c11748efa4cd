//go:build !linux

package cluster

import (
	"os/exec"
	"syscall"
)

// sysProcAttr: without Linux's parent-death signal, nodes outlive a dbrig
// that is SIGKILLed; Down and the state file still stop them.
func sysProcAttr(dieWithParent bool) *syscall.SysProcAttr {
	if !dieWithParent {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true}
}

type spawner struct{}

func newSpawner(bool) *spawner             { return &spawner{} }
func (*spawner) start(cmd *exec.Cmd) error { return cmd.Start() }
func (*spawner) close()                    {}

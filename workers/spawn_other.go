//go:build !linux

package workers

import (
	"os/exec"
	"syscall"
)

// sysProcAttr: outside Linux there is no parent-death signal; workers
// notice a lost coordinator by their stream (wire.LostAfter) and exit.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

type spawner struct{}

func newSpawner() *spawner                   { return &spawner{} }
func (s *spawner) start(cmd *exec.Cmd) error { return cmd.Start() }
func (s *spawner) close()                    {}

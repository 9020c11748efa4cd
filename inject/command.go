package inject

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Command runs a shell command as the fault (a database's own admin CLI:
// redis-cli DEBUG SLEEP, etcdctl move-leader, a FLUSHALL that loses data)
// and, when the fault heals, the heal command; without one there is
// nothing to undo. Each runs with sh -c in its own process group, which is
// killed if the command outlives ctx; the target's PIDs are in
// $DBRIG_PIDS (space-separated). A command that fails (non-zero exit) is a
// failed injection or heal, with the end of its output.
type Command struct {
	Run, Undo string
}

// NewCommand is a command fault that runs run, and undo (if not "") when
// it heals.
func NewCommand(run, undo string) (Command, error) {
	if strings.TrimSpace(run) == "" {
		return Command{}, fmt.Errorf("%w: command needs run: the shell command", ErrBadOption)
	}
	return Command{Run: run, Undo: undo}, nil
}

// Name implements Fault.
func (Command) Name() string { return "command" }

// Inject implements Fault.
func (c Command) Inject(ctx context.Context, t Target) error { return shell(ctx, c.Run, t) }

// Heal implements Fault.
func (c Command) Heal(ctx context.Context, t Target) error {
	if c.Undo == "" {
		return nil
	}
	return shell(ctx, c.Undo, t)
}

func shell(ctx context.Context, script string, t Target) error {
	cmd := exec.Command("sh", "-c", script)
	pids := make([]string, len(t.PIDs))
	for i, p := range t.PIDs {
		pids[i] = strconv.Itoa(p)
	}
	cmd.Env = append(os.Environ(), "DBRIG_PIDS="+strings.Join(pids, " "))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("command: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the whole group, by its id
		<-done
		err = ctx.Err()
	}
	if err != nil {
		tail := strings.TrimSpace(out.String())
		if len(tail) > 300 {
			tail = "…" + tail[len(tail)-300:]
		}
		return fmt.Errorf("command failed: %w: %s", err, tail)
	}
	return nil
}

// Restart stops the node (SIGTERM, or SIGKILL with Kill) for the fault's
// length and then starts it again on its data dir: Heal returns ErrNoHeal,
// and the injector restarts the node and waits until it is ready.
type Restart struct {
	Kill  bool
	Grace time.Duration
}

// NewRestart is a restart of a mode: stop (or "": SIGTERM, SIGKILL after
// grace) or kill.
func NewRestart(mode string, grace time.Duration) (Restart, error) {
	switch mode {
	case "", "stop":
		return Restart{Grace: grace}, nil
	case "kill":
		return Restart{Kill: true}, nil
	}
	return Restart{}, fmt.Errorf("%w: restart mode %q (expected stop or kill)", ErrBadOption, mode)
}

// Name implements Fault.
func (Restart) Name() string { return "restart" }

// Inject implements Fault.
func (r Restart) Inject(ctx context.Context, t Target) error {
	if r.Kill {
		return Kill{}.Inject(ctx, t)
	}
	return Stop{Grace: r.Grace}.Inject(ctx, t)
}

// Heal implements Fault: the node is started again by whoever owns it.
func (Restart) Heal(context.Context, Target) error { return ErrNoHeal }

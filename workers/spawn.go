package workers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/dbrig/dbrig/childproc"
)

// TokenEnv is the environment variable that carries the shared token
// (never a flag: it would show in ps).
const TokenEnv = "DBRIG_TOKEN"

// Procs are local worker processes this process started.
type Procs struct {
	procs []*exec.Cmd
	done  []chan struct{}
	sp    *childproc.Spawner
	once  sync.Once
}

// SpawnOptions say how to start local workers.
type SpawnOptions struct {
	Exe            string   // the dbrig binary (os.Executable)
	Args           []string // before the worker's own flags, e.g. ["worker"]
	Coordinator    string
	Token          string
	ConnectTimeout time.Duration
	Stderr         io.Writer // each line prefixed "worker I: " (nil: discarded)
}

// Spawn starts n workers, indexes 0…n-1, each in its own process group
// with a parent-death signal (Linux), so none outlives this process even
// when it is SIGKILLed. Stop them with Stop.
func Spawn(o SpawnOptions, n int) (*Procs, error) {
	p := &Procs{sp: childproc.NewSpawner(true)}
	var outMu sync.Mutex
	for i := 0; i < n; i++ {
		args := append(append([]string(nil), o.Args...), "--coordinator", o.Coordinator, "--index", strconv.Itoa(i),
			"--connect-timeout", o.ConnectTimeout.String())
		cmd := exec.Command(o.Exe, args...)
		cmd.Env = append(os.Environ(), TokenEnv+"="+o.Token)
		cmd.SysProcAttr = childproc.Attr(true) // a Ctrl-C reaches the coordinator, which stops its workers
		var pipe io.ReadCloser
		if o.Stderr != nil {
			var err error
			if pipe, err = cmd.StderrPipe(); err != nil {
				p.Stop(context.Background())
				return nil, err
			}
		}
		if err := p.sp.Start(cmd); err != nil {
			p.Stop(context.Background())
			return nil, fmt.Errorf("start worker %d: %w", i, err)
		}
		done := make(chan struct{})
		p.procs = append(p.procs, cmd)
		p.done = append(p.done, done)
		go func(i int) {
			if pipe != nil {
				sc := bufio.NewScanner(pipe)
				for sc.Scan() {
					outMu.Lock()
					fmt.Fprintf(o.Stderr, "worker %d: %s\n", i, sc.Text())
					outMu.Unlock()
				}
			}
			cmd.Wait() // after stderr was read to its end (exec's rule)
			close(done)
		}(i)
	}
	return p, nil
}

// PIDs are the workers' process IDs, by index.
func (p *Procs) PIDs() []int {
	out := make([]int, len(p.procs))
	for i, c := range p.procs {
		out[i] = c.Process.Pid
	}
	return out
}

// Exited reports whether worker i has exited, and its exit code.
func (p *Procs) Exited(i int) (bool, int) {
	select {
	case <-p.done[i]:
		return true, p.procs[i].ProcessState.ExitCode()
	default:
		return false, 0
	}
}

// Stop stops every worker by PID: those still running get SIGTERM, then
// SIGKILL after a few seconds (or when ctx is done); it waits for all.
func (p *Procs) Stop(ctx context.Context) error {
	defer p.once.Do(p.sp.Close)
	var errs []error
	for i, c := range p.procs {
		select {
		case <-p.done[i]:
			continue
		default:
		}
		if err := c.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, fmt.Errorf("stop worker %d (pid %d): %w", i, c.Process.Pid, err))
		}
		_ = c.Process.Signal(syscall.SIGCONT) // a stopped worker acts on the SIGTERM
	}
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	for i, c := range p.procs {
		select {
		case <-p.done[i]:
		case <-t.C:
			c.Process.Kill()
			<-p.done[i]
		case <-ctx.Done():
			c.Process.Kill()
			<-p.done[i]
		}
	}
	return errors.Join(errs...)
}

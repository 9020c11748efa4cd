// Package cluster stands the system under test up as local processes on
// 127.0.0.1, waits until it really serves clients, records what ran where,
// and tears it down always: at Down, on an error during Up, when Up's
// context is done, and (on Linux) when dbrig itself dies, even by SIGKILL.
//
// A Recipe (each system's own, in its home driver/NAME) lays the nodes out
// in stages; Up starts the stages in order and returns once every node
// passed its client-level readiness check. A State file lets a later process find and stop the
// cluster by PID.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dbrig/dbrig/childproc"
	"github.com/dbrig/dbrig/cpuset"
	"github.com/dbrig/dbrig/nodestat"
)

// Options say where and how a cluster runs. The zero value is usable.
type Options struct {
	// Dir holds each node's data dir and log. Empty: a new temporary
	// directory, removed by Down unless Keep.
	Dir string
	// Keep leaves data dirs (and a temporary Dir) in place after Down.
	Keep bool
	// Ports fixes ports by "node.name" (e.g. "etcd1.client"); any other
	// port is a free one on 127.0.0.1.
	Ports map[string]int
	// ReadyTimeout bounds each stage's wait for readiness (default: the
	// stage's own, else 30s).
	ReadyTimeout time.Duration
	// StopGrace is how long a node may take to stop after its stop signal
	// before it is killed (default 10s).
	StopGrace time.Duration
	// CPUs pins every node (and the processes it starts) to these CPUs;
	// empty: wherever the scheduler puts them. On a small machine, pin the
	// servers and the load generator (dbrig --cpus) apart.
	CPUs cpuset.Set
	// StateFile, if set, is written once the cluster is ready and removed
	// by Down (see ReadState).
	StateFile string
	// Detached lets the nodes outlive this process: no parent-death signal,
	// each node in its own session. For a
	// command that starts a cluster and exits; a later one stops it through
	// StateFile.
	Detached bool
	// PasswordEnv is the environment variable the recipe's password came
	// from (Passworded): the state file names it instead of keeping the
	// password.
	PasswordEnv string
}

func (o Options) readyTimeout(st Stage) time.Duration {
	if o.ReadyTimeout > 0 {
		return o.ReadyTimeout
	}
	if st.ReadyTimeout > 0 {
		return st.ReadyTimeout
	}
	return 30 * time.Second
}

func (o Options) stopGrace() time.Duration {
	if o.StopGrace > 0 {
		return o.StopGrace
	}
	return 10 * time.Second
}

// Node records one node that ran.
type Node struct {
	Name    string         `json:"name"`
	Role    string         `json:"role"`
	System  string         `json:"system"`
	PID     int            `json:"pid"`
	Start   uint64         `json:"start_ticks"` // start time in /proc/PID/stat: a reused PID never matches
	Ports   map[string]int `json:"ports"`
	Addr    string         `json:"addr"` // 127.0.0.1:client port
	URL     string         `json:"url,omitempty"`
	DataDir string         `json:"data_dir"`
	Log     string         `json:"log"`
	Binary  string         `json:"binary"`
	Version string         `json:"version,omitempty"`
	// How to stop it, for a process that did not start it.
	StopSignal     int  `json:"stop_signal"`
	StopLeaderOnly bool `json:"stop_leader_only,omitempty"`
}

// Cluster is a running set of nodes. Its methods are safe for concurrent use.
type Cluster struct {
	system  string
	dir     string
	ownDir  bool
	owner   owner // who marks the dirs this cluster creates
	opts    Options
	recipe  Recipe
	spawner *childproc.Spawner

	mu      sync.Mutex
	stages  []Stage // as the recipe laid them out: their ready checks, for a restart of all (image.go)
	procs   []*proc // started, in start order
	removed []*proc // taken out by RemoveNode (elastic.go): their dirs go at Down
	props   map[string]string
	closing bool // Down began: start nothing more

	downOnce sync.Once
	downErr  error
}

// proc is a node's running process.
type proc struct {
	spec   *NodeSpec
	stage  int
	serial bool // the stage stops one by one
	node   Node
	cmd    *exec.Cmd
	exited chan struct{} // closed when Wait returned
	err    error         // Wait's result, read after exited
}

// Up starts the cluster r describes and returns when every node is ready.
// On any failure it stops what it started and returns the error: a
// *BinaryMissingError, a *NotReadyError naming the node (with its log's
// last lines), or ctx's error. ctx bounds the start only: if it ends
// during Up, Up tears down and returns. Once Up returned, call Down when
// finished (or StopWhenDone to tie the cluster to a context).
func Up(ctx context.Context, r Recipe, opts Options) (*Cluster, error) {
	c := &Cluster{system: r.System(), opts: opts, recipe: r, owner: self(opts.Detached)}
	if err := c.makeDir(opts.Dir); err != nil {
		return nil, err
	}
	// Servers that run as another user (postgres) must reach their dirs.
	if err := os.Chmod(c.dir, 0o755); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	l := newLayout(c.dir, opts.Ports)
	stages, err := r.Layout(l)
	l.release()
	if err == nil {
		err = l.unused()
	}
	if err == nil {
		err = checkNodeDirs(stages)
	}
	if err != nil {
		c.removeDirs(nil)
		return nil, err
	}
	c.spawner = childproc.NewSpawner(!opts.Detached)
	// Tear down at once when ctx ends mid-start, not after a stage's wait.
	stop := context.AfterFunc(ctx, func() { c.Down(context.Background()) })
	defer stop()
	c.stages = stages
	for i, st := range stages {
		if err := c.startStage(ctx, i, st); err != nil {
			c.Down(context.Background())
			if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
				err = fmt.Errorf("%w (%w)", ctx.Err(), err)
			}
			return nil, err
		}
	}
	c.mu.Lock()
	c.props = r.Props(c.nodesLocked())
	c.mu.Unlock()
	if opts.StateFile != "" {
		if err := WriteState(opts.StateFile, c.State()); err != nil {
			c.Down(context.Background())
			return nil, err
		}
	}
	return c, nil
}

func (c *Cluster) startStage(ctx context.Context, i int, st Stage) error {
	for _, ns := range st.Nodes {
		if err := c.startNode(ctx, i, st, ns); err != nil {
			return err
		}
	}
	return c.waitStage(ctx, i, st)
}

// waitStage waits until every node of stage i is ready, then the stage's
// own check.
func (c *Cluster) waitStage(ctx context.Context, i int, st Stage) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.readyTimeout(st))
	defer cancel()
	c.mu.Lock()
	var ps []*proc
	for _, p := range c.procs {
		if p.stage == i {
			ps = append(ps, p)
		}
	}
	c.mu.Unlock()
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for k, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = waitReady(ctx, p, st.Name, p.spec.Ready)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, e := range errs {
			if e != nil {
				return e // the first node in order; its log tells the story
			}
		}
	}
	if st.Ready != nil {
		// A stage check fails on no single node; name the first.
		if err := waitReady(ctx, ps[0], st.Name, st.Ready); err != nil {
			var nr *NotReadyError
			if errors.As(err, &nr) {
				nr.Node = "stage " + st.Name + " (" + ps[0].spec.Name + ")"
			}
			return err
		}
	}
	return nil
}

// waitReady polls check every 100ms until it passes, the node exits, or ctx
// ends.
func waitReady(ctx context.Context, p *proc, stage string, check func(context.Context) error) error {
	fail := func(err error, exited bool) error {
		return &NotReadyError{Node: p.spec.Name, Stage: stage, Log: p.spec.Log,
			LogTail: tailLines(p.spec.Log, 20), Exited: exited, Err: err}
	}
	// A check in flight ends when the process exits: a crashed node is
	// reported at once, not after a dial timeout.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		select {
		case <-p.exited:
			return fail(fmt.Errorf("process %d exited: %v", p.node.PID, p.err), true)
		default:
		}
		if check == nil {
			return nil
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = check(cctx)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-p.exited:
			return fail(fmt.Errorf("process %d exited: %v", p.node.PID, p.err), true)
		case <-ctx.Done():
			select {
			case <-p.exited:
				return fail(fmt.Errorf("process %d exited: %v", p.node.PID, p.err), true)
			default:
			}
			return fail(fmt.Errorf("%w; last check: %v", ctx.Err(), last), false)
		case <-tick.C:
		}
	}
}

func (c *Cluster) startNode(ctx context.Context, stage int, st Stage, ns *NodeSpec) error {
	return c.spawnNode(ctx, stage, st, ns, true)
}

// spawnNode starts one node; setup says whether to run its one-time Setup
// (initdb and the like), which a restart on the same data dir skips.
func (c *Cluster) spawnNode(ctx context.Context, stage int, st Stage, ns *NodeSpec, setup bool) error {
	fail := func(err error) error {
		return &NotReadyError{Node: ns.Name, Stage: st.Name, Log: ns.Log, LogTail: tailLines(ns.Log, 20), Err: err}
	}
	cred, err := credential(ns.User)
	if err != nil {
		return fail(err)
	}
	logf, err := os.OpenFile(ns.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fail(err)
	}
	defer logf.Close() // the child holds its own copy
	if ns.DataDir != "" {
		if err := claimDir(ns.DataDir, c.owner, 0o700); err != nil {
			return fail(err)
		}
	}
	for path, content := range ns.Files {
		// 0600: configs may hold passwords (requirepass); a node that runs
		// as another user gets them through chownTree below.
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			return fail(err)
		}
	}
	if cred != nil && ns.DataDir != "" {
		if err := chownTree(ns.DataDir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}
	if ns.Setup != nil && setup {
		run := func(ctx context.Context, bin string, args ...string) error {
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Stdout, cmd.Stderr = logf, logf
			cmd.Env = append(nodeEnv(os.Environ(), ns.Env), ns.SetupEnv...)
			cmd.Dir = c.dir
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
			fmt.Fprintf(logf, "dbrig: running %s %v\n", bin, args)
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s: %w", filepath.Base(bin), err)
			}
			return nil
		}
		if err := ns.Setup(ctx, run); err != nil {
			return fail(fmt.Errorf("setup: %w", err))
		}
	}
	cmd := exec.Command(ns.Binary, ns.Args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = nodeEnv(os.Environ(), ns.Env)
	cmd.Dir = c.dir
	cmd.SysProcAttr = childproc.Attr(!c.opts.Detached)
	cmd.SysProcAttr.Credential = cred
	fmt.Fprintf(logf, "dbrig: starting %s %v\n", ns.Binary, ns.Args)
	// Under c.mu, so that a concurrent Down (ctx ended) either sees this
	// process or prevents its start.
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return fail(errors.New("cluster is going down"))
	}
	if err := c.spawner.StartOn(cmd, c.opts.CPUs); err != nil {
		return fail(fmt.Errorf("start %s: %w", ns.Binary, err))
	}
	p := &proc{spec: ns, stage: stage, serial: st.StopOneByOne, cmd: cmd, exited: make(chan struct{})}
	p.node = Node{Name: ns.Name, Role: ns.Role, System: c.system, PID: cmd.Process.Pid,
		Ports: ns.Ports, Addr: HostPort(ns.Ports["client"]), URL: ns.URL, DataDir: ns.DataDir,
		Log: ns.Log, Binary: ns.Binary, Version: ns.Version,
		StopSignal: int(stopSignal(ns)), StopLeaderOnly: ns.StopLeaderOnly}
	if st, err := (nodestat.Proc{}).Stat(p.node.PID); err == nil {
		p.node.Start = st.StartTime
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	c.procs = append(c.procs, p)
	return nil
}

func stopSignal(ns *NodeSpec) syscall.Signal {
	if ns.StopSignal != 0 {
		return ns.StopSignal
	}
	return syscall.SIGTERM
}

// credential returns who to run as: nil (ourselves) unless we are root and
// name is another user.
func credential(name string) (*syscall.Credential, error) {
	if name == "" || os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("run as %s: %w", name, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("run as %s: %w", name, err)
	}
	if uid == 0 {
		return nil, nil
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// stopAll stops procs, later stages first; the nodes of a stage together
// (one at a time where the stage says so), and returns every node's error.
func (c *Cluster) stopAll(ctx context.Context, procs []*proc) []error {
	var errs []error
	for stage := lastStage(procs); stage >= 0; stage-- {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for k := len(procs) - 1; k >= 0; k-- {
			p := procs[k]
			if p.stage != stage {
				continue
			}
			if p.serial {
				wg.Wait()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := c.stopProc(ctx, p); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	return errs
}

// Down stops every node (later stages first; nodes of a stage together):
// the stop signal, StopGrace, then SIGKILL to the process group, and waits
// until each has exited. Then it removes data dirs unless Keep, and the
// state file. It is safe to call more than once and concurrently; every
// call returns the first call's result. If ctx ends early, nodes are killed
// without waiting out the grace period.
func (c *Cluster) Down(ctx context.Context) error {
	c.downOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		procs := append([]*proc(nil), c.procs...)
		c.mu.Unlock()
		errs := c.stopAll(ctx, procs)
		if c.spawner != nil {
			c.spawner.Close()
		}
		c.mu.Lock()
		removed := append([]*proc(nil), c.removed...)
		c.mu.Unlock()
		errs = append(errs, c.removeDirs(append(procs, removed...)))
		if c.opts.StateFile != "" {
			if err := os.Remove(c.opts.StateFile); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		c.downErr = errors.Join(errs...)
	})
	return c.downErr
}

func lastStage(ps []*proc) int {
	n := -1
	for _, p := range ps {
		n = max(n, p.stage)
	}
	return n
}

func (c *Cluster) stopProc(ctx context.Context, p *proc) error {
	pid := p.node.PID
	select {
	case <-p.exited:
	default:
		target := -pid // the process group: the server and anything it forked
		if p.spec.StopLeaderOnly {
			target = pid
		}
		syscall.Kill(target, stopSignal(p.spec))
		t := time.NewTimer(c.opts.stopGrace())
		select {
		case <-p.exited:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	// Sweep the group even after a clean exit: forked helpers (a Redis
	// BGSAVE child, a PostgreSQL backend) must not outlive the node.
	syscall.Kill(-pid, syscall.SIGKILL)
	select {
	case <-p.exited:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("cluster: node %s (pid %d) did not exit after SIGKILL", p.node.Name, pid)
	}
}

func (c *Cluster) removeDirs(procs []*proc) error {
	if c.opts.Keep {
		return nil
	}
	if c.ownDir {
		return removeOwned(c.dir)
	}
	var errs []error
	for _, p := range procs {
		if p.spec.DataDir != "" {
			errs = append(errs, removeOwned(p.spec.DataDir))
		}
	}
	return errors.Join(errs...)
}

// StopWhenDone calls Down when ctx is done; the returned function undoes
// that (false if Down already ran), like context.AfterFunc.
func (c *Cluster) StopWhenDone(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() { c.Down(context.Background()) })
}

// Nodes returns the nodes in start order.
func (c *Cluster) Nodes() []Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodesLocked()
}

func (c *Cluster) nodesLocked() []Node {
	out := make([]Node, len(c.procs))
	for i, p := range c.procs {
		out[i] = p.node
	}
	return out
}

// Addrs returns the client addresses (127.0.0.1:port) of the nodes with
// role, in start order; all nodes when role is "".
func (c *Cluster) Addrs(role string) []string {
	var out []string
	for _, n := range c.Nodes() {
		if role == "" || n.Role == role {
			out = append(out, n.Addr)
		}
	}
	return out
}

// Props returns the driver properties that point a driver at the cluster
// (e.g. "etcd.endpoints", "redis.addr", "pg.url").
func (c *Cluster) Props() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]string, len(c.props))
	for k, v := range c.props {
		out[k] = v
	}
	return out
}

// Dir is the directory holding the nodes' data and logs.
func (c *Cluster) Dir() string { return c.dir }

// System names the system the cluster runs.
func (c *Cluster) System() string { return c.system }

// Restart starts a node again on its data dir (stopping it first if it
// still runs) and waits until it is ready, as a fault's heal does after a
// kill or a stop. The node keeps its name, ports and data; its PID changes.
func (c *Cluster) Restart(ctx context.Context, name string) (Node, error) {
	c.mu.Lock()
	var old *proc
	for _, p := range c.procs {
		if p.spec.Name == name {
			old = p
		}
	}
	c.mu.Unlock()
	if old == nil {
		return Node{}, fmt.Errorf("%w %q", ErrNoTarget, name)
	}
	select {
	case <-old.exited:
	default:
		if err := c.stopProc(ctx, old); err != nil {
			return Node{}, err
		}
	}
	st := Stage{Name: "restart " + name, StopOneByOne: old.serial}
	if err := c.spawnNode(ctx, old.stage, st, old.spec, false); err != nil {
		return Node{}, err
	}
	c.mu.Lock()
	var p *proc
	for i, q := range c.procs {
		if q == old {
			c.procs = append(c.procs[:i], c.procs[i+1:]...)
			break
		}
	}
	p = c.procs[len(c.procs)-1]
	c.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, c.opts.readyTimeout(st))
	defer cancel()
	if err := waitReady(rctx, p, st.Name, p.spec.Ready); err != nil {
		return p.node, err
	}
	return p.node, nil
}

// nodeEnv is a node's environment: the recipe's own variables and, from
// dbrig's environment, only what a server needs to find its tools and
// locale. Nothing else passes: dbrig's environment may hold secrets (the
// variable of --password-env, DBRIG_TOKEN, a results URL) that the node's
// /proc/PID/environ would otherwise show to anyone running as that user,
// and variables such as ETCD_* would silently change what the node does.
func nodeEnv(parent, own []string) []string {
	env := make([]string, 0, len(own)+8)
	for _, kv := range parent {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH", name == "HOME", name == "USER", name == "LOGNAME",
			name == "LANG", name == "LANGUAGE", name == "TZ", name == "TMPDIR",
			name == "JAVA_HOME", strings.HasPrefix(name, "LC_"):
			env = append(env, kv)
		}
	}
	return append(env, own...)
}

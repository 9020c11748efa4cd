package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// A Recipe knows one system: how to lay out its nodes in stages, how to
// tell each is ready through the system's own client, and which driver
// properties reach the result. Each recipe lives in its system's home
// (driver/etcd/cluster.go, …); optional capabilities are in
// capability.go, roles.go, elastic.go and proxy.go.
type Recipe interface {
	// System names the system ("etcd", "redis", "postgres").
	System() string
	// Layout plans the nodes. It finds binaries (a *BinaryMissingError when
	// one is absent) and takes ports from l; it starts nothing.
	Layout(l *Layout) ([]Stage, error)
	// Props returns the driver properties (spec keys such as "etcd.endpoints")
	// that point a driver at the running cluster.
	Props(nodes []Node) map[string]string
}

// Stage is a set of nodes that start together after every earlier stage is
// ready (replicas after their primary, sentinels after both). A stage is
// ready when every node's Ready check passes, then the stage's own Ready.
type Stage struct {
	Name  string
	Nodes []*NodeSpec
	// Ready, if set, checks the stage as a whole after each node passed
	// (e.g. etcd members agree on a leader). Called repeatedly until nil.
	Ready func(ctx context.Context) error
	// StopOneByOne stops the stage's nodes one at a time, in reverse start
	// order, instead of together. An etcd leader that is asked to stop hands
	// its leadership to a live member first; with all members stopping at
	// once it waits out a timeout (7s) for members that are gone.
	StopOneByOne bool
	// ReadyTimeout is how long the stage may take to become ready when
	// Options.ReadyTimeout does not say (default 30s): JVMs start slowly.
	ReadyTimeout time.Duration
}

// NodeSpec is how one node is started, checked and stopped.
type NodeSpec struct {
	Name, Role string
	Binary     string
	Args       []string
	Env        []string // added to the environment (KEY=VALUE)
	SetupEnv   []string // added to Setup's commands only (a password for pg_basebackup)
	Version    string   // as the binary reports it
	DataDir    string   // created before Setup, removed by Down unless Keep
	Log        string   // stdout and stderr of the node and of its setup commands
	Ports      map[string]int
	Files      map[string]string // written before Setup: path → content (configs)
	// User is the OS user the node and its setup commands run as when dbrig
	// runs as root (PostgreSQL refuses root). Empty: the current user.
	User string
	// Setup runs after earlier stages are ready and before the node starts
	// (initdb, pg_basebackup). run runs a command to completion as User with
	// output to Log.
	Setup func(ctx context.Context, run RunFunc) error
	// Ready is one check that the node serves clients; nil means ready.
	Ready func(ctx context.Context) error
	// StopSignal asks the node to stop (default SIGTERM). It goes to the
	// whole process group unless StopLeaderOnly is set.
	StopSignal syscall.Signal
	// StopLeaderOnly sends StopSignal to the node's main process only, for
	// servers that shut their own children down in order (PostgreSQL: a
	// SIGINT to every backend would only cancel queries, and the postmaster
	// coordinates the fast shutdown itself).
	StopLeaderOnly bool
	// URL is the address of the node in its system's URL form, for Node.URL.
	URL string
	// Durable: everything the node holds is in DataDir after a clean stop,
	// so a copy of it taken then is an image (image.go).
	Durable bool
}

// RunFunc runs a setup command to completion.
type RunFunc func(ctx context.Context, bin string, args ...string) error

// Layout hands a recipe what it needs to plan nodes: the cluster directory,
// ports, binary lookup.
type Layout struct {
	Dir      string
	ports    map[string]int
	held     []net.Listener
	taken    map[int]bool
	assigned map[string]int // every "node.name" handed out, given or picked
}

func newLayout(dir string, ports map[string]int) *Layout {
	return &Layout{Dir: dir, ports: ports, taken: map[int]bool{}, assigned: map[string]int{}}
}

// NodeDir is the directory of a node's data: Dir/name.
func (l *Layout) NodeDir(node string) string { return filepath.Join(l.Dir, node) }

// LogPath is the node's log, beside (not in) its data dir so it survives
// the data's removal when the cluster directory is kept.
func (l *Layout) LogPath(node string) string { return filepath.Join(l.Dir, node+".log") }

// Port returns the port Options.Ports gives for "node.name" (e.g.
// "etcd1.client"), or a free port on 127.0.0.1. A given port must be free
// (a *PortInUseError if not) and given once. A free port is found by
// listening on 127.0.0.1:0. Either way the listener is held until the
// layout is done so that no two nodes get the same port, then closed before
// anything starts.
func (l *Layout) Port(node, name string) (int, error) {
	key := node + "." + name
	if p, ok := l.ports[key]; ok {
		if p <= 0 || p > 65535 {
			return 0, &PortInUseError{Node: node, Name: name, Port: p, Err: fmt.Errorf("not a TCP port")}
		}
		if l.taken[p] {
			return 0, &PortInUseError{Node: node, Name: name, Port: p, Err: fmt.Errorf("given to another node of the cluster")}
		}
		ln, err := net.Listen("tcp", HostPort(p))
		if err != nil {
			return 0, &PortInUseError{Node: node, Name: name, Port: p, Err: err}
		}
		l.held = append(l.held, ln)
		l.taken[p] = true
		l.assigned[key] = p
		return p, nil
	}
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("cluster: free port for %s: %w", key, err)
		}
		l.held = append(l.held, ln)
		p := ln.Addr().(*net.TCPAddr).Port
		if !l.taken[p] && !l.givenElsewhere(p) {
			l.taken[p] = true
			l.assigned[key] = p
			return p, nil
		}
	}
}

// givenElsewhere: Options.Ports gives p to a node not laid out yet.
func (l *Layout) givenElsewhere(p int) bool {
	for _, q := range l.ports {
		if q == p {
			return true
		}
	}
	return false
}

// unused returns an error when Options.Ports names a port no node has
// (a typo such as "etcd4.client" for three members).
func (l *Layout) unused() error {
	var bad []string
	for k := range l.ports {
		if _, ok := l.assigned[k]; !ok {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	have := make([]string, 0, len(l.assigned))
	for k := range l.assigned {
		have = append(have, k)
	}
	sort.Strings(have)
	return &UnknownPortError{Keys: bad, Known: have}
}

func (l *Layout) release() {
	for _, ln := range l.held {
		ln.Close()
	}
	l.held = nil
}

// Binary returns the path of a server binary: override if set (it must
// exist; a leading ~/ is the home directory), else the first of names found
// on $PATH or as an absolute path.
func (l *Layout) Binary(system, override, install string, names ...string) (string, error) {
	if override != "" {
		override = ExpandHome(override)
		if err := executable(override); err != nil {
			return "", &BinaryMissingError{System: system, Binary: override, Install: install, Given: true, Err: err}
		}
		return override, nil
	}
	var err error
	for _, n := range names {
		var p string
		if p, err = exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", &BinaryMissingError{System: system, Binary: strings.Join(names, " or "), Install: install, Err: err}
}

func executable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}

// Version runs bin with args (e.g. --version) and returns its first line of
// output, or "" when that fails (a version is a record, not a requirement).
func (l *Layout) Version(bin string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(first)
}

// Loopback is the only address nodes listen on and are reached at.
const Loopback = "127.0.0.1"

// HostPort is the address of a node's port on Loopback.
func HostPort(port int) string { return net.JoinHostPort(Loopback, fmt.Sprint(port)) }

// ValidDatabaseName says whether name can be a database of a recipe:
// lower-case letters, digits and '_', not starting with a digit, at most 63
// bytes (it is then the same name, unquoted, in PostgreSQL and MariaDB).
func ValidDatabaseName(name string) bool {
	if name == "" || len(name) > 63 || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// ExpandHome turns a leading "~/" of path into the user's home directory
// (experiment files name binaries in a cache there); any other path is
// returned as it is.
func ExpandHome(path string) string {
	rest, ok := strings.CutPrefix(path, "~/")
	if !ok {
		return path
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return path
	}
	return filepath.Join(home, rest)
}

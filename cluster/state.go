package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/dbrig/dbrig/nodestat"
	"github.com/dbrig/dbrig/spec"
)

// State is what a later process needs to find a cluster: its nodes with
// PIDs and start times, ports, dirs, and driver properties. It is stored as
// JSON (WriteState, ReadState).
type State struct {
	System  string            `json:"system"`
	Dir     string            `json:"dir"`
	OwnDir  bool              `json:"own_dir"` // Dir was made for the cluster: Down removes it all
	Keep    bool              `json:"keep"`
	Created time.Time         `json:"created"`
	Nodes   []Node            `json:"nodes"`
	Props   map[string]string `json:"props"`
	// CPUs the nodes are pinned to (Options.CPUs; "": not pinned), so that
	// a later process can keep its load generator off them.
	CPUs string `json:"cpus,omitempty"`
	// Secrets are the properties that carry the cluster's password. A
	// state file keeps no secret: Props lacks them, and whoever needs them
	// derives them again from the system's recipe and PasswordEnv
	// (experiment.ClusterProps). Node URLs are kept without passwords.
	Secrets []string `json:"secret_props,omitempty"`
	// PasswordEnv is the environment variable the password came from
	// (Options.PasswordEnv); "": the recipe's own.
	PasswordEnv string `json:"password_env,omitempty"`
}

// State returns the cluster's state, without its secrets.
func (c *Cluster) State() State {
	nodes, props := c.Nodes(), c.Props()
	s := State{System: c.system, Dir: c.dir, OwnDir: c.ownDir, Keep: c.opts.Keep,
		Created: time.Now().UTC(), Nodes: nodes, Props: props, PasswordEnv: c.opts.PasswordEnv}
	if len(c.opts.CPUs) > 0 {
		s.CPUs = c.opts.CPUs.String()
	}
	s.Secrets = secretProps(c.recipe, nodes, props)
	for _, k := range s.Secrets {
		delete(props, k)
	}
	for i := range nodes {
		if nodes[i].URL != "" {
			nodes[i].URL = spec.RedactURL(nodes[i].URL)
		}
	}
	return s
}

// secretProps are the keys of props that carry a secret: those that change
// with the password of a Passworded recipe, and those a redaction would
// change (a key named for a secret, a URL or DSN with a password).
func secretProps(r Recipe, nodes []Node, props map[string]string) []string {
	var a, b map[string]string
	if pr, ok := r.(Passworded); ok {
		a, b = pr.WithPassword("a").Props(nodes), pr.WithPassword("b").Props(nodes)
	}
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if a[k] != b[k] || spec.RedactProp(k, props[k]) != props[k] {
			keys = append(keys, k)
		}
	}
	return keys
}

// WriteState writes s to path as JSON, atomically (a reader never sees half
// a file).
func WriteState(path string, s State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("cluster: state: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cluster: state: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("cluster: state: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cluster: state: %w", err)
	}
	return nil
}

// ReadState reads a state file that WriteState wrote.
func ReadState(path string) (State, error) {
	var s State
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("cluster: state: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("cluster: state %s: %w", path, err)
	}
	return s, nil
}

// Alive tells whether the node's process still runs: its PID exists, is not
// a zombie, and started when recorded (so a reused PID is not taken for it).
func (n Node) Alive() bool {
	st, err := (nodestat.Proc{}).Stat(n.PID)
	return err == nil && (n.Start == 0 || st.StartTime == n.Start)
}

// Down stops the nodes of a state file from any process: the recorded stop
// signal to each live node (later nodes first), grace, then SIGKILL to its
// process group, and verifies in /proc that every PID is gone. A PID whose
// start time differs from the record belongs to another process now and is
// never signalled. Then it removes data dirs unless Keep, and the file at
// path (if path is not "").
func (s State) Down(ctx context.Context, path string, grace time.Duration) error {
	if grace <= 0 {
		grace = 10 * time.Second
	}
	var errs []error
	for i := len(s.Nodes) - 1; i >= 0; i-- {
		n := s.Nodes[i]
		if n.PID <= 0 || n.Start == 0 || !n.Alive() {
			continue
		}
		sig := syscall.Signal(n.StopSignal)
		if sig == 0 {
			sig = syscall.SIGTERM
		}
		target := -n.PID
		if n.StopLeaderOnly {
			target = n.PID
		}
		syscall.Kill(target, sig)
		if !waitGone(ctx, n, grace) && n.Alive() {
			syscall.Kill(-n.PID, syscall.SIGKILL)
			if !waitGone(context.Background(), n, 10*time.Second) {
				errs = append(errs, fmt.Errorf("cluster: node %s (pid %d) still runs after SIGKILL", n.Name, n.PID))
				continue
			}
		}
		// No sweep of the group now that the leader is gone: its PGID could
		// be a new process's, and a reused PID is never signalled. The
		// servers' own children exit when their parent does.
	}
	if len(errs) == 0 && !s.Keep {
		// Only directories carrying dbrig's marker: a state file is input,
		// and one naming a user's directory must not delete it.
		if s.OwnDir {
			errs = append(errs, removeOwned(s.Dir))
		} else {
			for _, n := range s.Nodes {
				if n.DataDir != "" {
					errs = append(errs, removeOwned(n.DataDir))
				}
			}
		}
	}
	if path != "" && errors.Join(errs...) == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// waitGone polls until n is gone, d passes or ctx ends; it reports gone.
func waitGone(ctx context.Context, n Node, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for n.Alive() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

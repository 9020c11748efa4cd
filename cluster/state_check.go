package cluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// What dbrig cluster up, status, env and logs ask of a state file's cluster.

// DefaultStateFile is $XDG_STATE_HOME/dbrig/cluster.json, else
// ~/.local/state/dbrig/cluster.json.
func DefaultStateFile() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "dbrig", "cluster.json")
}

// LoadState reads the state file at path; ok is false when there is none.
func LoadState(path string) (s State, ok bool, err error) {
	s, err = ReadState(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, false, nil
	}
	return s, err == nil, err
}

// Existing looks at the state file of a cluster about to go up with recipe
// r and the given ports. alive: the same cluster is up and answering (s
// says which). A different cluster with a node alive, or a state file that
// cannot be read, is an error. s without alive: a cluster whose every node
// is gone, for the caller to clear (State.Down). Neither: no state file.
func Existing(path string, r Recipe, ports map[string]int) (s *State, alive bool, err error) {
	st, ok, err := LoadState(path)
	if err != nil {
		return nil, false, fmt.Errorf("%w; remove it if no cluster of yours is up", err)
	}
	if !ok {
		return nil, false, nil
	}
	if n := st.AliveNodes(); n > 0 {
		if why := st.Mismatch(r, ports); why != "" {
			return nil, false, fmt.Errorf("a cluster is up already (%s, %d of %d nodes alive, state %s) but %s: `dbrig cluster down` first, or give another --state", st.System, n, len(st.Nodes), path, why)
		}
		return &st, true, nil
	}
	return &st, false, nil
}

// Node is the node called name.
func (s State) Node(name string) (Node, error) {
	var names []string
	for _, n := range s.Nodes {
		if n.Name == name {
			return n, nil
		}
		names = append(names, n.Name)
	}
	return Node{}, fmt.Errorf("no node %q in the %s cluster (nodes: %s)", name, s.System, strings.Join(names, ", "))
}

// AliveNodes counts the nodes whose process is still running.
func (s State) AliveNodes() int {
	n := 0
	for _, nd := range s.Nodes {
		if nd.Alive() {
			n++
		}
	}
	return n
}

// Mismatch says why the cluster of state s is not the one asked for
// (recipe r with the given ports), or "" when it is: same system, same
// nodes, the given ports, every node alive and accepting connections.
func (s State) Mismatch(r Recipe, ports map[string]int) string {
	if s.System != r.System() {
		return "it runs " + s.System + ", not " + r.System()
	}
	planned, _, err := Plan(r, nil)
	if err != nil {
		return err.Error()
	}
	var want, have []string
	for _, n := range planned {
		want = append(want, n.Name)
	}
	byName := map[string]Node{}
	for _, n := range s.Nodes {
		have = append(have, n.Name)
		byName[n.Name] = n
	}
	if strings.Join(want, ",") != strings.Join(have, ",") {
		return fmt.Sprintf("its nodes are %s, not %s", strings.Join(have, ", "), strings.Join(want, ", "))
	}
	for k, p := range ports {
		node, name, _ := strings.Cut(k, ".")
		if got := byName[node].Ports[name]; got != p {
			return fmt.Sprintf("%s is on port %d, not %d", k, got, p)
		}
	}
	for _, n := range s.Nodes {
		if !n.Alive() {
			return "node " + n.Name + " is not running"
		}
		c, err := net.DialTimeout("tcp", n.Addr, 2*time.Second)
		if err != nil {
			return fmt.Sprintf("node %s does not answer on %s (%v)", n.Name, n.Addr, err)
		}
		c.Close()
	}
	return ""
}

// EnvPrefix is the prefix of the environment variables `dbrig cluster
// env` exports (without --prefix) and `dbrig run` reads.
const EnvPrefix = "DBRIG_"

// EnvName is prefix + key in upper case, every character that a shell
// variable name cannot hold turned into '_'.
func EnvName(prefix, key string) string {
	b := []byte(strings.ToUpper(key))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return prefix + string(b)
}

// ValidEnvPrefix tells whether p can begin a shell variable's name.
func ValidEnvPrefix(p string) bool {
	for i, c := range p {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// ShellQuote single-quotes s for a POSIX shell: nothing inside is
// special but the single quote itself, which ends the quoting, is written
// escaped, and quoting starts again.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellWord is s as one word for a POSIX shell: as it is when it holds
// nothing special, else single-quoted.
func ShellWord(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,:/=@%+", r))
	}) < 0 {
		return s
	}
	return ShellQuote(s)
}

// ParsePorts reads fixed ports given as NODE.NAME=PORT (dbrig cluster up
// --port); nil for none.
func ParsePorts(flags []string) (map[string]int, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	ports := map[string]int{}
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		node, name, ok2 := strings.Cut(k, ".")
		p, err := strconv.Atoi(v)
		if !ok || !ok2 || node == "" || name == "" || err != nil || p <= 0 || p > 65535 {
			return nil, fmt.Errorf("--port %q: expected NODE.NAME=PORT with a port 1-65535 (e.g. etcd1.client=2379)", f)
		}
		if _, dup := ports[k]; dup {
			return nil, fmt.Errorf("--port %s given twice", k)
		}
		ports[k] = p
	}
	return ports, nil
}

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/spec"
)

const clusterUsage = `dbrig cluster up FILE.yaml|RECIPE [--nodes N --replicas N --sentinels N --binary PATH --config k=v] [--dir DIR] [--keep]
dbrig cluster status
dbrig cluster down
dbrig cluster logs NODE [-n 50]
(every subcommand takes --state FILE; default: the per-user state dir)`

// clusterCmd: dbrig cluster up|status|down|logs — a local cluster that
// outlives the command, found again through a state file.
func clusterCmd(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(e.stdout, clusterUsage)
		return nil
	}
	sub := map[string]func(context.Context, *env, []string) error{
		"up": clusterUp, "status": clusterStatus, "down": clusterDown, "logs": clusterLogs,
	}[args[0]]
	if sub == nil {
		return usagef("dbrig cluster: unknown subcommand %q; usage:\n%s", args[0], clusterUsage)
	}
	return sub(ctx, e, args[1:])
}

// defaultStateFile is $XDG_STATE_HOME/dbrig/cluster.json, else
// ~/.local/state/dbrig/cluster.json.
func defaultStateFile() string {
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

// clusterFlags parses a subcommand's flags, --state among them, and
// returns the positional arguments.
func clusterFlags(fs *flag.FlagSet, args []string) (state string, pos []string, err error) {
	st := fs.String("state", defaultStateFile(), "the state file of the cluster")
	pos, err = parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return "", nil, errHelp
	}
	if err != nil {
		return "", nil, &usageError{msg: err.Error()}
	}
	return *st, pos, nil
}

// readState reads the state file; ok is false when there is none.
func readState(path string) (s cluster.State, ok bool, err error) {
	s, err = cluster.ReadState(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, false, nil
	}
	return s, err == nil, err
}

func aliveNodes(s cluster.State) int {
	n := 0
	for _, nd := range s.Nodes {
		if nd.Alive() {
			n++
		}
	}
	return n
}

func clusterUp(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig cluster up", e.stderr)
	var c spec.Cluster
	var config, sets listFlag
	fs.IntVar(&c.Nodes, "nodes", 0, "members (etcd, hazelcast; default 3)")
	fs.IntVar(&c.Replicas, "replicas", 0, "replicas of the primary (redis, postgres)")
	fs.IntVar(&c.Sentinels, "sentinels", 0, "Redis Sentinels (0 or at least 3)")
	fs.StringVar(&c.Binary, "binary", "", "the server binary (postgres: its bin dir; hazelcast: the jar)")
	fs.Var(&config, "config", "a server setting key=value (as system.cluster.config); repeatable")
	fs.Var(&sets, "set", "FILE.yaml: override a value of the file (key.path=value); repeatable")
	dir := fs.String("dir", "", "where the nodes' data and logs go (default: a new temporary dir)")
	keep := fs.Bool("keep", false, "keep the data when the cluster goes down")
	state, pos, err := clusterFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("dbrig cluster up: expected one experiment file or recipe (%s)", strings.Join(experiment.Recipes(), ", "))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var recipe cluster.Recipe
	var drv string
	if arg := pos[0]; strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") {
		for _, k := range []string{"nodes", "replicas", "sentinels", "binary", "config"} {
			if given[k] {
				return usagef("dbrig cluster up: --%s: the file says how the cluster looks; override it with --set system.cluster.%s=…", k, k)
			}
		}
		p, d, err := experiment.FileCluster(arg, sets)
		if err != nil {
			return err
		}
		recipe, drv, *keep = p.Recipe, d, *keep || p.Keep
	} else {
		if len(sets) > 0 {
			return usagef("dbrig cluster up: --set applies to an experiment file; give the recipe's options as flags")
		}
		if len(config) > 0 {
			c.Config = map[string]string{}
			for _, kv := range config {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return usagef("dbrig cluster up: --config %q: expected key=value", kv)
				}
				c.Config[k] = v
			}
		}
		if recipe, drv, err = experiment.ClusterRecipe(arg, c, func(k string) bool { return given[k] }); err != nil {
			return err
		}
	}
	if s, ok, err := readState(state); err != nil {
		return &experiment.InputError{Err: fmt.Errorf("%w; remove it if no cluster of yours is up", err)}
	} else if ok {
		if n := aliveNodes(s); n > 0 {
			return &experiment.InputError{Err: fmt.Errorf("a cluster is up already (%s, %d nodes alive, state %s): `dbrig cluster down` first, or give another --state", s.System, n, state)}
		}
		// Every node is gone (a reboot, a kill): clear what is left.
		if err := s.Down(ctx, state, time.Second); err != nil {
			return fmt.Errorf("clear the stale state %s: %w", state, err)
		}
		fmt.Fprintf(e.stderr, "cleared a stale state file (%s cluster, no node alive)\n", s.System)
	}
	start := time.Now()
	cl, err := cluster.Up(ctx, recipe, cluster.Options{Dir: *dir, Keep: *keep, StateFile: state, Detached: true})
	if err != nil {
		return fmt.Errorf("local %s cluster: %w", recipe.System(), err)
	}
	fmt.Fprintf(e.stdout, "%s cluster up in %v (state %s, dir %s)\n", cl.System(), time.Since(start).Round(100*time.Millisecond), state, cl.Dir())
	printNodes(e.stdout, cl.Nodes(), nil)
	props := cl.Props()
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ps []string
	for _, k := range keys {
		ps = append(ps, "-p "+shellQuote(k+"="+props[k]))
	}
	fmt.Fprintf(e.stdout, "\nrun against it:\n  dbrig run --driver %s %s -P workloada\nstop it:\n  dbrig cluster down\n", drv, strings.Join(ps, " "))
	return nil
}

// shellQuote quotes s for a POSIX shell when it holds anything special.
func shellQuote(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,:/=@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// printNodes lists nodes; with a state, whether each is alive.
func printNodes(w io.Writer, nodes []cluster.Node, aliveOf func(cluster.Node) bool) {
	for _, n := range nodes {
		status := ""
		if aliveOf != nil {
			status = "alive"
			if !aliveOf(n) {
				status = "DEAD "
			}
			status += "  "
		}
		fmt.Fprintf(w, "  %s%-10s %-8s pid %-7d %-21s log %s\n", status, n.Name, n.Role, n.PID, n.Addr, n.Log)
	}
}

// stateOf parses the flags of a command that takes no arguments and reads
// the state file; ok is false (and said) when no cluster is up.
func stateOf(e *env, cmd string, args []string) (state string, s cluster.State, ok bool, err error) {
	state, pos, err := clusterFlags(newFlagSet("dbrig cluster "+cmd, e.stderr), args)
	if err != nil {
		return "", cluster.State{}, false, err
	}
	if len(pos) != 0 {
		return "", cluster.State{}, false, usagef("dbrig cluster %s: no arguments expected", cmd)
	}
	st, ok, err := readState(state)
	if err != nil {
		return "", cluster.State{}, false, err
	}
	if !ok {
		fmt.Fprintf(e.stdout, "no cluster is up (no state file %s)\n", state)
	}
	return state, st, ok, nil
}

func clusterStatus(_ context.Context, e *env, args []string) error {
	state, s, ok, err := stateOf(e, "status", args)
	if err != nil || !ok {
		return err
	}
	fmt.Fprintf(e.stdout, "%s cluster, up since %s: %d of %d nodes alive (state %s, dir %s)\n",
		s.System, s.Created.Local().Format(time.DateTime), aliveNodes(s), len(s.Nodes), state, s.Dir)
	printNodes(e.stdout, s.Nodes, cluster.Node.Alive)
	return nil
}

func clusterDown(ctx context.Context, e *env, args []string) error {
	state, s, ok, err := stateOf(e, "down", args)
	if err != nil || !ok {
		return err
	}
	start := time.Now()
	if err := s.Down(ctx, state, 0); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s cluster down in %v (%d nodes stopped)\n", s.System, time.Since(start).Round(100*time.Millisecond), len(s.Nodes))
	return nil
}

func clusterLogs(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig cluster logs", e.stderr)
	lines := fs.Int("n", 50, "lines from the end of the log")
	state, pos, err := clusterFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("dbrig cluster logs: expected one node name")
	}
	s, ok, err := readState(state)
	if err != nil {
		return err
	}
	if !ok {
		return &experiment.InputError{Err: fmt.Errorf("no cluster is up (no state file %s)", state)}
	}
	var names []string
	for _, n := range s.Nodes {
		if n.Name == pos[0] {
			for _, l := range cluster.LogTail(n.Log, *lines) {
				fmt.Fprintln(e.stdout, l)
			}
			return nil
		}
		names = append(names, n.Name)
	}
	return &experiment.InputError{Err: fmt.Errorf("no node %q in the %s cluster (nodes: %s)", pos[0], s.System, strings.Join(names, ", "))}
}

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/spec"
)

const clusterUsage = `dbrig cluster up FILE.yaml|RECIPE [--nodes N --replicas N --sentinels N --binary PATH --config k=v]
                 [--port NODE.NAME=PORT]… [--database NAME]… [--password-env VAR] [--dir DIR] [--keep]
dbrig cluster status
dbrig cluster env [--prefix DBRIG_]      (shell export lines: eval "$(dbrig cluster env)")
dbrig cluster down
dbrig cluster logs NODE [-n 50]
(every subcommand takes --state FILE; default: the per-user state dir; one state file per cluster)`

// clusterCmd: dbrig cluster up|status|down|logs — a local cluster that
// outlives the command, found again through a state file.
func clusterCmd(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(e.stdout, clusterUsage)
		return nil
	}
	sub := map[string]func(context.Context, *env, []string) error{
		"up": clusterUp, "status": clusterStatus, "down": clusterDown, "logs": clusterLogs, "env": clusterEnv,
	}[args[0]]
	if sub == nil {
		return usagef("dbrig cluster: unknown subcommand %q; usage:\n%s", args[0], clusterUsage)
	}
	return sub(ctx, e, args[1:])
}

// clusterFlags parses a subcommand's flags, --state among them, and
// returns the positional arguments.
func clusterFlags(fs *flag.FlagSet, args []string) (state string, pos []string, err error) {
	st := fs.String("state", cluster.DefaultStateFile(), "the state file of the cluster")
	pos, err = parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return "", nil, errHelp
	}
	if err != nil {
		return "", nil, &usageError{msg: err.Error()}
	}
	return *st, pos, nil
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
	var portFlags, dbs listFlag
	fs.Var(&portFlags, "port", "fix a node's port: NODE.NAME=PORT (e.g. etcd1.client=2379); repeatable; other ports are free ones")
	fs.Var(&dbs, "database", "postgres, mariadb: another database for user dbrig besides dbrig; repeatable")
	pwEnv := fs.String("password-env", "", "take the password from this environment variable (redis: requirepass; postgres, mariadb: user dbrig's)")
	dir := fs.String("dir", "", "where the nodes' data and logs go (default: a new temporary dir)")
	keep := fs.Bool("keep", false, "keep the data when the cluster goes down")
	cpus := fs.String("cpus", "", "pin every node to these CPUs (e.g. 1, or 2-3; default: unpinned); give dbrig the others (--cpus on run, rate, bench)")
	state, pos, err := clusterFlags(fs, args)
	if err != nil {
		return err
	}
	pin, err := cpusFlag(*cpus)
	if err != nil {
		return err
	}
	ports, err := cluster.ParsePorts(portFlags)
	if err != nil {
		return usagef("dbrig cluster up: %v", err)
	}
	if len(pos) != 1 {
		return usagef("dbrig cluster up: expected one experiment file or recipe (%s)", strings.Join(experiment.Recipes(), ", "))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var recipe cluster.Recipe
	var drv string
	if arg := pos[0]; spec.IsExperimentFile(arg) {
		for _, k := range []string{"nodes", "replicas", "sentinels", "binary", "config", "port"} {
			if given[k] {
				key := "system.cluster." + k
				if k == "port" {
					key = "system.cluster.ports.NODE.NAME"
				}
				return usagef("dbrig cluster up: --%s: the file says how the cluster looks; override it with --set %s=…", k, key)
			}
		}
		p, d, err := experiment.FileCluster(arg, sets)
		if err != nil {
			return err
		}
		recipe, drv, *keep, ports = p.Recipe, d, *keep || p.Keep, p.Fixed
		if pin == nil {
			pin = p.CPUs
		}
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
	if recipe, err = withRecipeExtras(recipe, dbs, *pwEnv); err != nil {
		return err
	}
	s, alive, err := cluster.Existing(state, recipe, ports)
	switch {
	case err != nil:
		return &experiment.InputError{Err: err}
	case alive:
		// Idempotent: the same cluster, up and answering, is no error.
		fmt.Fprintf(e.stdout, "%s cluster is up already (state %s, dir %s): nothing to do\n", s.System, state, s.Dir)
		report.Nodes(e.stdout, s.Nodes, nil)
		return nil
	case s != nil: // every node is gone (a reboot, a kill): clear what is left
		if err := s.Down(ctx, state, time.Second); err != nil {
			return fmt.Errorf("clear the stale state %s: %w", state, err)
		}
		fmt.Fprintf(e.stderr, "cleared a stale state file (%s cluster, no node alive)\n", s.System)
	}
	// Binaries, given ports (free? a node has them?) are checked before
	// anything starts.
	if _, _, err := cluster.Plan(recipe, ports); err != nil {
		return &experiment.InputError{Err: fmt.Errorf("local %s cluster: %w", recipe.System(), err)}
	}
	start := time.Now()
	cl, err := cluster.Up(ctx, recipe, cluster.Options{Dir: *dir, Keep: *keep, StateFile: state, Detached: true, Ports: ports, CPUs: pin, PasswordEnv: *pwEnv})
	if err != nil {
		return upError(ctx, recipe.System(), err)
	}
	fmt.Fprintf(e.stdout, "%s cluster up in %v (state %s, dir %s)\n", cl.System(), time.Since(start).Round(100*time.Millisecond), state, cl.Dir())
	report.Nodes(e.stdout, cl.Nodes(), nil)
	stateFlag := ""
	if state != cluster.DefaultStateFile() {
		stateFlag = " --state " + cluster.ShellWord(state)
	}
	report.ClusterUsage(e.stdout, drv, cl.Props(), stateFlag)
	return nil
}

// withRecipeExtras applies --database and --password-env to the recipes
// that have them (experiment.RecipeExtras), and refuses them for the others.
func withRecipeExtras(r cluster.Recipe, dbs []string, pwEnv string) (cluster.Recipe, error) {
	r, err := experiment.RecipeExtras(r, dbs, pwEnv, os.Getenv)
	if err != nil {
		return nil, usagef("dbrig cluster up: %v", err)
	}
	return r, nil
}

// clusterEnv prints one shell export line per driver property of the
// running cluster (secrets too: it is for eval, and says so nowhere else),
// named PREFIX + the property in upper case with '_' for '.': the names
// internal/testenv reads (DBRIG_PG_URL, DBRIG_REDIS_PASSWORD, …). Values
// are single-quoted, so any password is safe to eval.
func clusterEnv(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig cluster env", e.stderr)
	prefix := fs.String("prefix", cluster.EnvPrefix, "prefix of the variable names (dbrig run and bench read "+cluster.EnvPrefix+"…)")
	state, pos, err := clusterFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("dbrig cluster env: no arguments expected")
	}
	if !cluster.ValidEnvPrefix(*prefix) {
		return usagef("dbrig cluster env: --prefix %q: expected letters, digits and _, not starting with a digit", *prefix)
	}
	s, ok, err := cluster.LoadState(state)
	if err != nil {
		return err
	}
	// Nothing but export lines on stdout: it is eval'd.
	if !ok {
		return &experiment.InputError{Err: fmt.Errorf("no cluster is up (no state file %s)", state)}
	}
	if n := s.AliveNodes(); n != len(s.Nodes) {
		return fmt.Errorf("the %s cluster of %s is not fully up: %d of %d nodes alive (dbrig cluster status --state %s)", s.System, state, n, len(s.Nodes), cluster.ShellWord(state))
	}
	props, err := experiment.ClusterProps(s, os.Getenv)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(e.stdout, "export %s=%s\n", cluster.EnvName(*prefix, k), cluster.ShellQuote(props[k]))
	}
	return nil
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
	st, ok, err := cluster.LoadState(state)
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
	pinned := ""
	if s.CPUs != "" {
		pinned = ", pinned to CPUs " + s.CPUs
	}
	fmt.Fprintf(e.stdout, "%s cluster, up since %s: %d of %d nodes alive%s (state %s, dir %s)\n",
		s.System, s.Created.Local().Format(time.DateTime), s.AliveNodes(), len(s.Nodes), pinned, state, s.Dir)
	report.Nodes(e.stdout, s.Nodes, cluster.Node.Alive)
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
	s, ok, err := cluster.LoadState(state)
	if err != nil {
		return err
	}
	if !ok {
		return &experiment.InputError{Err: fmt.Errorf("no cluster is up (no state file %s)", state)}
	}
	n, err := s.Node(pos[0])
	if err != nil {
		return &experiment.InputError{Err: err}
	}
	for _, l := range cluster.LogTail(n.Log, *lines) {
		fmt.Fprintln(e.stdout, l)
	}
	return nil
}

// upError classes a failed cluster.Up: a foreign data directory is bad
// input (exit 2), Ctrl-C is an interruption (exit 130).
func upError(ctx context.Context, system string, err error) error {
	err = fmt.Errorf("local %s cluster: %w", system, err)
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %w", errInterrupted, err)
	case errors.Is(err, cluster.ErrNotOwned):
		return &experiment.InputError{Err: err}
	}
	return err
}

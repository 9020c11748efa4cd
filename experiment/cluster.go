package experiment

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cpuset"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/nodestat"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/spec"
)

// ClusterPlan is a local cluster a run stands up before it opens the
// driver, and tears down after it, whatever happens.
type ClusterPlan struct {
	Recipe cluster.Recipe
	Keep   bool // keep the data directories
	// Nodes are the nodes as laid out at resolve time, with every port:
	// what --dry-run prints and what runs (Ports goes to cluster.Up).
	Nodes []cluster.PlannedNode
	Ports map[string]int // "node.name" → port
	// Fixed are the ports the file gives (system.cluster.ports).
	Fixed map[string]int
	// CPUs pins every node (system.cluster.cpus); empty: unpinned.
	CPUs cpuset.Set
}

// recipeDrivers are the local clusters dbrig can start, by the name an
// experiment file gives (system.cluster.recipe): each system's home
// registers its recipes (driver.Driver.Clusters) with the driver that
// speaks to them.
func recipeDrivers() map[string]string {
	out := map[string]string{}
	for name, d := range all.Registry() {
		for recipe := range d.Clusters {
			out[recipe] = name
		}
	}
	return out
}

// Recipes lists the recipe names, sorted.
func Recipes() []string { return slices.Sorted(maps.Keys(recipeDrivers())) }

// recipeOf is a cluster plan's recipe (nil: no local cluster).
func recipeOf(cp *ClusterPlan) cluster.Recipe {
	if cp == nil {
		return nil
	}
	return cp.Recipe
}

// clusterPlan turns an experiment file's system.cluster into a recipe,
// refusing options the system does not have, with the file's positions,
// and lays its nodes out: every binary found, every port fixed.
func clusterPlan(e spec.Experiment) (*ClusterPlan, error) {
	cp, err := clusterRecipe(e)
	if cp == nil || err != nil {
		return nil, err
	}
	nodes, ports, err := cluster.Plan(cp.Recipe, cp.Fixed)
	if err != nil {
		at := "system.cluster"
		var bm *cluster.BinaryMissingError
		var pe *cluster.PortInUseError
		var ue *cluster.UnknownPortError
		switch {
		case errors.As(err, &bm) && e.System.Cluster.Binary != "":
			at = "system.cluster.binary"
		case errors.As(err, &pe):
			at = "system.cluster.ports." + pe.Node + "." + pe.Name
		case errors.As(err, &ue):
			at = "system.cluster.ports." + ue.Keys[0]
		}
		return nil, e.Errorf(at, "%v", err)
	}
	cp.Nodes, cp.Ports = nodes, ports
	return cp, nil
}

// clusterRecipe is clusterPlan without the layout: the recipe and the
// file's fixed ports.
func clusterRecipe(e spec.Experiment) (*ClusterPlan, error) {
	c := e.System.Cluster
	if c == nil {
		return nil, nil
	}
	name := c.Recipe
	if name == "" {
		name = e.System.Driver
	}
	drv, ok := recipeDrivers()[name]
	if !ok {
		return nil, e.Errorf("system.cluster.recipe", "no local cluster recipe %q (expected one of %v)", name, Recipes())
	}
	if drv != e.System.Driver {
		return nil, e.Errorf("system.driver", "%q cannot drive a %s cluster (expected driver %s)", e.System.Driver, name, drv)
	}
	given := func(key string) bool { _, ok := e.Position("system.cluster." + key); return ok }
	refuse := func(key, why string) error { return e.Errorf("system.cluster."+key, "%s", why) }
	r, err := recipe(name, *c, given, refuse)
	if err != nil {
		return nil, err
	}
	fixed := map[string]int{}
	for _, k := range slices.Sorted(maps.Keys(c.Ports)) {
		node, name, ok := strings.Cut(k, ".")
		p, err := strconv.Atoi(c.Ports[k])
		if !ok || node == "" || name == "" {
			return nil, e.Errorf("system.cluster.ports."+k, "expected a key node.port such as etcd1.client")
		}
		if err != nil || p <= 0 || p > 65535 {
			return nil, e.Errorf("system.cluster.ports."+k, "expected a TCP port 1-65535, got %q", c.Ports[k])
		}
		fixed[k] = p
	}
	var cpus cpuset.Set
	if c.CPUs != "" {
		if cpus, err = cpuset.Parse(c.CPUs); err == nil && len(cpus) == 0 {
			err = errors.New("expected at least one CPU")
		}
		if err == nil {
			err = cpus.Check()
		}
		if err != nil {
			return nil, e.Errorf("system.cluster.cpus", "%v", err)
		}
	}
	return &ClusterPlan{Recipe: r, Keep: c.Keep, Fixed: fixed, CPUs: cpus}, nil
}

// ClusterRecipe is the recipe name with options c, as `dbrig cluster up
// RECIPE --nodes N …` gives them: given tells which options were set (by
// their key: nodes, replicas, sentinels, binary, config). It returns the
// recipe and the driver that speaks to it; bad input is an *InputError
// naming the flag.
func ClusterRecipe(name string, c spec.Cluster, given func(key string) bool) (cluster.Recipe, string, error) {
	drv, ok := recipeDrivers()[name]
	if !ok {
		return nil, "", &InputError{Err: fmt.Errorf("no local cluster recipe %q (expected one of %v)", name, Recipes())}
	}
	refuse := func(key, why string) error { return &InputError{Err: fmt.Errorf("--%s: %s", key, why)} }
	r, err := recipe(name, c, given, refuse)
	return r, drv, err
}

// RecipeExtras gives r the databases to create besides its own (names
// checked) and the password of the variable pwEnv (read through getenv;
// "": the recipe's own), refusing either for a recipe that has none
// (cluster.DatabaseCreator, cluster.Passworded): `dbrig cluster up
// --database`, `--password-env`. Errors name the flag.
func RecipeExtras(r cluster.Recipe, dbs []string, pwEnv string, getenv func(string) string) (cluster.Recipe, error) {
	for _, db := range dbs {
		if !cluster.ValidDatabaseName(db) {
			return nil, fmt.Errorf("--database %q: expected lower-case letters, digits and _ (not first)", db)
		}
	}
	pw := ""
	if pwEnv != "" {
		if pw = getenv(pwEnv); pw == "" {
			return nil, fmt.Errorf("--password-env %s: the variable is not set or empty", pwEnv)
		}
	}
	if len(dbs) > 0 {
		dc, ok := r.(cluster.DatabaseCreator)
		if !ok {
			return nil, fmt.Errorf("--database: the %s recipe has no databases to create", r.System())
		}
		var err error
		if r, err = dc.WithDatabases(dbs); err != nil {
			return nil, fmt.Errorf("--database: %w", err)
		}
	}
	if pw != "" {
		pr, ok := r.(cluster.Passworded)
		if !ok {
			return nil, fmt.Errorf("--password-env: the %s recipe has no password", r.System())
		}
		r = pr.WithPassword(pw)
	}
	return r, nil
}

// FileCluster is the local cluster an experiment file describes (its first
// run's, when a matrix makes several) and the driver that speaks to it. It
// lays nothing out (a cluster of the file may be up already): the plan has
// the recipe and the file's fixed ports only.
func FileCluster(path string, sets []string) (*ClusterPlan, string, error) {
	exps, err := spec.ReadExperiment(path, sets)
	if err != nil {
		return nil, "", input(err)
	}
	e := exps[0]
	if e.System.Cluster == nil {
		return nil, "", &InputError{Err: e.Errorf("system", "no system.cluster: the file runs against an embedded or external system")}
	}
	p, err := clusterRecipe(e)
	if err != nil {
		return nil, "", input(err)
	}
	return p, e.System.Driver, nil
}

// ClusterProps is the driver properties of the cluster of state s, secrets
// included. A state file keeps none (cluster.State.Secrets): they are
// derived again from the system's recipe with its password, read through
// getenv from the variable the cluster was started with (--password-env),
// or the recipe's own.
func ClusterProps(s cluster.State, getenv func(string) string) (map[string]string, error) {
	props := maps.Clone(s.Props)
	if props == nil {
		props = map[string]string{}
	}
	if len(s.Secrets) == 0 {
		return props, nil
	}
	r, _, err := ClusterRecipe(s.System, spec.Cluster{}, func(string) bool { return false })
	if err != nil {
		return nil, fmt.Errorf("the %s cluster's secret properties: %w", s.System, err)
	}
	if s.PasswordEnv != "" {
		pw := getenv(s.PasswordEnv)
		if pw == "" {
			return nil, &InputError{Err: fmt.Errorf("the %s cluster's password came from $%s (--password-env), which is not set here: dbrig keeps no password; export it again", s.System, s.PasswordEnv)}
		}
		pr, ok := r.(cluster.Passworded)
		if !ok {
			return nil, fmt.Errorf("the %s cluster's secret properties: its recipe has no password", s.System)
		}
		r = pr.WithPassword(pw)
	}
	derived := r.Props(s.Nodes)
	for _, k := range s.Secrets {
		v, ok := derived[k]
		if !ok {
			return nil, fmt.Errorf("the %s cluster's property %s: its recipe does not derive it", s.System, k)
		}
		props[k] = v
	}
	return props, nil
}

// recipe builds the recipe name with c's options, refusing (through refuse,
// by option key) the options the system does not have.
func recipe(name string, c spec.Cluster, given func(key string) bool, refuse func(key, why string) error) (cluster.Recipe, error) {
	build, ok := all.Registry()[recipeDrivers()[name]].Clusters[name]
	if !ok {
		return nil, refuse("recipe", fmt.Sprintf("no local cluster recipe %q (expected one of %v)", name, Recipes()))
	}
	return build(c, given, refuse)
}

// up stands the cluster up and points the plan's driver at it.
func (p *Plan) up(ctx context.Context, h Hooks) (*cluster.Cluster, error) {
	c, err := cluster.Up(ctx, p.Cluster.Recipe, cluster.Options{Keep: p.Cluster.Keep, Ports: p.Cluster.Ports, CPUs: p.Cluster.CPUs})
	var pe *cluster.PortInUseError
	if errors.As(err, &pe) {
		if _, fixed := p.Cluster.Fixed[pe.Node+"."+pe.Name]; !fixed && ctx.Err() == nil {
			// A port picked (free) at resolve time was taken since, minutes
			// ago for a later run of a matrix: pick free ones again.
			if h.Warn != nil {
				h.Warn(fmt.Errorf("port %d, free when the plan was made, is taken now (%s.%s): the nodes get other free ports", pe.Port, pe.Node, pe.Name))
			}
			c, err = cluster.Up(ctx, p.Cluster.Recipe, cluster.Options{Keep: p.Cluster.Keep, Ports: p.Cluster.Fixed, CPUs: p.Cluster.CPUs})
		}
	}
	if err != nil {
		return nil, fmt.Errorf("local %s cluster: %w", p.Cluster.Recipe.System(), err)
	}
	for k, v := range c.Props() {
		p.Props.Set(k, v, spec.Source{Flag: "cluster"})
	}
	p.SpecText = p.Props.Text()
	if h.ClusterUp != nil {
		h.ClusterUp(c.Nodes())
	}
	return c, nil
}

// storedNodes is the cluster's nodes as the results store keeps them.
func storedNodes(nodes []cluster.Node) []results.Node {
	out := make([]results.Node, len(nodes))
	for i, n := range nodes {
		out[i] = results.Node{Name: n.Name, Role: n.Role, System: n.System, PID: n.PID, Ports: n.Ports,
			Addr: n.Addr, DataDir: n.DataDir, Log: n.Log, Binary: n.Binary, Version: n.Version}
	}
	return out
}

// sampleNodes samples every node's process tree and dbrig itself once a
// second into the store's metrics table until the returned stop is called.
// A failed write is reported through fail (once) and the run goes on.
func sampleNodes(ctx context.Context, store *results.Store, runID int64, nodes []cluster.Node, fail func(error)) (stop func()) {
	targets := []nodestat.Target{nodestat.Self()}
	for _, n := range nodes {
		targets = append(targets, nodestat.Target{Name: n.Name, PID: n.PID, Tree: true})
	}
	sctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		nodestat.Run(sctx, time.Second, targets, func(s nodestat.Sample) {
			m := results.Metric{Node: s.Node, Time: s.Time, CPUUser: s.UserPct, CPUSys: s.SystemPct, RSS: s.RSS,
				ReadBytes: s.Delta.ReadBytes, WriteBytes: s.Delta.WriteBytes,
				CtxSwitches: s.Delta.VoluntaryCtxt + s.Delta.InvoluntaryCtxt, FDs: s.FDs, Gone: s.Gone}
			if err := store.AddMetrics(context.WithoutCancel(ctx), runID, []results.Metric{m}); err != nil {
				fail(fmt.Errorf("store metrics: %w", err))
			}
		})
	}()
	return func() { cancel(); wg.Wait() }
}

// CanImage tells, before the cluster starts, whether it could keep images
// of its nodes' data (cluster.CanImagePlanned): an error wrapping
// cluster.ErrNoImage if not. A plan not laid out yet is laid out (nothing
// starts); an error of that layout is returned as it is.
func (cp *ClusterPlan) CanImage() error {
	nodes := cp.Nodes
	if nodes == nil {
		var err error
		if nodes, _, err = cluster.Plan(cp.Recipe, cp.Fixed); err != nil {
			return err
		}
	}
	return cluster.CanImagePlanned(cp.Recipe.System(), nodes)
}

// Standing is a local cluster stood up once for many runs, as a rating's
// experiments are: each run is attached to it (Attach) instead of standing
// up a cluster of its own, so that the data set outlives the run.
type Standing struct {
	c *cluster.Cluster
}

// StandUp starts o's cluster (o.Cluster) and returns it with o attached.
// The caller tears it down with Down, whatever happens.
func StandUp(ctx context.Context, o Options, h Hooks) (*Standing, Options, error) {
	if o.Cluster == nil {
		return nil, o, errors.New("experiment: no cluster to stand up")
	}
	p, err := Resolve(o)
	if err != nil {
		return nil, o, err
	}
	c, err := p.up(ctx, h)
	if err != nil {
		return nil, o, err
	}
	s := &Standing{c: c}
	return s, s.Attach(o), nil
}

// Attach points o at the cluster: its driver properties as overrides, its
// nodes (as they are now: an image restore gives them new PIDs) recorded
// and sampled by the run, and no cluster of its own.
func (s *Standing) Attach(o Options) Options {
	o.Cluster = nil
	props := s.c.Props()
	o.Overrides = append([]Override(nil), o.Overrides...)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		o.Overrides = append(o.Overrides, Override{Flag: "cluster", Key: k, Value: props[k]})
	}
	o.Attached = s.c.Nodes()
	return o
}

// System names the system the cluster runs.
func (s *Standing) System() string { return s.c.System() }

// Nodes are the cluster's nodes as they run now.
func (s *Standing) Nodes() []cluster.Node { return s.c.Nodes() }

// CanImage, SaveImage, RestoreImage and DropImage keep images of every
// node's data directory (cluster/image.go).
func (s *Standing) CanImage() error { return s.c.CanImage() }

func (s *Standing) SaveImage(ctx context.Context, name string) error {
	return s.c.SaveImage(ctx, name)
}

func (s *Standing) RestoreImage(ctx context.Context, name string) error {
	return s.c.RestoreImage(ctx, name)
}

func (s *Standing) DropImage(name string) error { return s.c.DropImage(name) }

// Down stops every node and removes the data unless the file keeps it.
func (s *Standing) Down(ctx context.Context) error { return s.c.Down(ctx) }

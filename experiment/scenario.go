package experiment

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/inject/kube"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/spec"
)

// Injection is one planned firing of a fault: resolved before the run, at
// an exact offset into the measure phase, so a run can be repeated.
type Injection struct {
	Name   string       // names its events
	Fault  inject.Fault // what
	Target string       // a node name or a role, resolved when it fires
	// Link is what a network fault acts on: "client" (dbrig ↔ the node) or
	// "peer" (the node ↔ the other nodes); Groups, for a partition, splits
	// the cluster instead.
	Link   string
	Groups [][]string
	At     time.Duration // offset into the measure phase
	For    time.Duration // until healed (0: instantaneous): a pause resumes, a killed or stopped node restarts
	// Stable, if set, makes At the time the fault is armed: it fires once
	// the system has been stable this long (conditional trigger; see
	// injector.stable).
	Stable time.Duration
}

// Kinds of the events faults emit: an instantaneous fault (kill, stop) is
// one event of kind fault; one that lasts (pause) is fault_start and
// fault_end with the same name, which reports draw as a band.
const (
	EventFault      = "fault"
	EventFaultStart = "fault_start"
	EventFaultEnd   = "fault_end"
)

// knownTargets are the roles a scenario may name besides node names; the
// cluster checks a target against its live nodes when the fault fires.
var knownTargets = map[string]bool{"any": true, "leader": true, "follower": true, "member": true,
	"primary": true, "replica": true, "sentinel": true}

// routesPeers tells whether dbrig can route the peer traffic of r's nodes
// through its proxies (cluster.Routable).
func routesPeers(r cluster.Recipe) bool {
	_, ok := r.(cluster.Routable)
	return ok
}

// entry is one checked scenario entry, before its firings are expanded.
type entry struct {
	f     spec.Fault
	fault inject.Fault
	at    time.Duration // resolved: dependent triggers follow their cause
	state int           // cycle search: 0 new, 1 on the path, 2 done
}

// last is when the entry's last firing has ended.
func (en *entry) last() time.Duration {
	return en.at + time.Duration(max(en.f.Count-1, 0))*en.f.Every + en.f.For
}

// scenarioPlan checks an experiment file's scenario and expands it into
// injections (recurring faults into one per firing, dependent ones at
// their cause's end plus the wait), with the file's positions in errors.
func scenarioPlan(e spec.Experiment, measure time.Duration) ([]Injection, error) {
	if len(e.Scenario) == 0 {
		return nil, nil
	}
	var rec cluster.Recipe // nil: no local cluster
	if cp, err := clusterRecipe(e); err != nil {
		return nil, err
	} else if cp != nil {
		rec = cp.Recipe
	}
	kenv := newKubeEnv(e) // Kubernetes faults (scenario_kube.go) share it
	var entries []*entry
	byName := map[string]*entry{}
	for _, f := range e.Scenario {
		bad := func(key, format string, args ...any) error { return faultErr(e, f, key, format, args...) }
		var en *entry
		var err error
		switch {
		case kubeKind(f.Kind):
			en, err = kubeEntry(e, f, kenv, bad)
		case e.System.Cluster == nil:
			return nil, faultErr(e, f, "fault", "a %s fault acts on the nodes of a local cluster: give system.cluster (faults on Kubernetes: %s)", f.Kind, strings.Join(kube.Kinds(), ", "))
		default:
			en, err = checkEntry(f, rec, bad)
		}
		if err != nil {
			return nil, err
		}
		if byName[f.Name] != nil {
			return nil, bad("name", "%q names two faults", f.Name)
		}
		byName[f.Name] = en
		entries = append(entries, en)
	}
	// Dependent triggers: the cause must exist, and no chain may come back.
	var resolve func(en *entry, path []string) error
	resolve = func(en *entry, path []string) error {
		switch en.state {
		case 2:
			return nil
		case 1:
			return faultErr(e, en.f, "after", "the faults wait for each other in a cycle: %s", strings.Join(append(path, en.f.Name), " → "))
		}
		en.state = 1
		en.at = en.f.At
		if en.f.After != "" {
			cause := byName[en.f.After]
			if cause == nil {
				return faultErr(e, en.f, "after", "no fault named %q in the scenario (names: %s)", en.f.After, strings.Join(sortedKeys(byName), ", "))
			}
			if err := resolve(cause, append(path, en.f.Name)); err != nil {
				return err
			}
			if cause.f.When != "" {
				return faultErr(e, en.f, "after", "%q fires when the system is stable: when is not known before the run, so nothing can wait for it", cause.f.Name)
			}
			en.at = cause.last() + en.f.Wait
		}
		en.state = 2
		return nil
	}
	for _, en := range entries {
		if err := resolve(en, nil); err != nil {
			return nil, err
		}
	}
	var out []Injection
	for _, en := range entries {
		f := en.f
		for k := 0; k < f.Count; k++ {
			at := en.at + time.Duration(k)*f.Every
			if measure > 0 && at+f.StableFor+f.For > measure {
				key := "at"
				if f.After != "" {
					key = "after"
				}
				return nil, faultErr(e, f, key, "fires at %v (at the earliest) and lasts %v, past the measure phase's end (%v)", at+f.StableFor, f.For, measure)
			}
			name := f.Name
			if f.Count > 1 {
				name = fmt.Sprintf("%s#%d", f.Name, k+1)
			}
			out = append(out, Injection{Name: name, Fault: en.fault, Target: f.Target, Link: f.Link, Groups: f.Groups, At: at, For: f.For, Stable: f.StableFor})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	if err := checkOverlaps(e, out, byName, namedOnly); err != nil {
		return nil, err
	}
	return out, nil
}

// faultErr is bad input in a scenario entry, at its key's position (the
// entry's when the key was not written).
func faultErr(e spec.Experiment, f spec.Fault, key, format string, args ...any) error {
	path := f.Path + "." + key
	if _, ok := e.Position(path); ok {
		return e.Errorf(path, format, args...)
	}
	return &spec.FileError{Pos: f.Pos, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// checkEntry checks one scenario entry on its own.
func checkEntry(f spec.Fault, rec cluster.Recipe, bad func(key, format string, args ...any) error) (*entry, error) {
	rate, err := parseRate(f.Rate)
	if err != nil {
		return nil, bad("rate", "%v", err)
	}
	fault, err := inject.New(f.Kind, inject.Options{Grace: 10 * time.Second, Delay: f.Delay, Jitter: f.Jitter, Rate: rate, Mode: f.Mode,
		Run: f.Run, Heal: f.Heal, Role: f.Target})
	if err != nil {
		key := "fault"
		switch {
		case errors.Is(err, inject.ErrBadOption) && f.Kind == "delay":
			key = "delay"
		case errors.Is(err, inject.ErrBadOption) && f.Kind == "bandwidth":
			key = "rate"
		case errors.Is(err, inject.ErrBadOption) && f.Kind == "command":
			key = "run"
		case errors.Is(err, inject.ErrBadOption):
			key = "mode"
		}
		return nil, bad(key, "%v", err)
	}
	network := inject.Network(f.Kind)
	// Settings another kind of fault takes are a mistake, not ignored.
	for key, given := range map[string]bool{"delay": f.Delay != 0 && f.Kind != "delay", "jitter": f.Jitter != 0 && f.Kind != "delay",
		"rate": f.Rate != "" && f.Kind != "bandwidth", "mode": f.Mode != "" && f.Kind != "drop" && f.Kind != "restart",
		"run": f.Run != "" && f.Kind != "command", "heal": f.Heal != "" && f.Kind != "command",
		"groups": len(f.Groups) > 0 && f.Kind != "partition", "link": f.Link != "" && !network} {
		if given {
			return nil, bad(key, "a %s fault has no %s", f.Kind, key)
		}
	}
	if elasticFault(f.Kind) {
		if err := checkElastic(f.Kind, f.Target, rec, f.For > 0, bad); err != nil {
			return nil, err
		}
	}
	if _, _, random, err := randomTarget(f.Target); random {
		if err != nil {
			return nil, bad("target", "%v", err)
		}
	} else if role := strings.TrimPrefix(f.Target, "all-"); !knownTargets[role] && f.Target != "all" && !looksLikeNode(f.Target) {
		return nil, bad("target", "%q: expected a node name (etcd1, primary …), a role (one node of it: leader, follower, primary, replica, member, any), all-ROLE or random-N-ROLE", f.Target)
	}
	if network {
		switch {
		case len(f.Groups) > 0:
			if f.Link != "" && f.Link != "peer" {
				return nil, bad("link", "a partition into groups cuts peer links: leave link out")
			}
			if sp, ok := rec.(cluster.StarPeers); ok {
				return nil, bad("groups", "%s", sp.PartitionHint())
			}
			if err := checkGroups(f.Groups); err != nil {
				return nil, bad("groups", "%v", err)
			}
			f.Link = "peer"
		case f.Link == "":
			f.Link = "client"
			if f.Kind == "partition" && routesPeers(rec) {
				f.Link = "peer"
			}
		case f.Link != "client" && f.Link != "peer":
			return nil, bad("link", "%q: expected client (dbrig ↔ the node) or peer (the node ↔ the other nodes)", f.Link)
		}
		if f.Link == "peer" && !routesPeers(rec) {
			return nil, bad("link", "the %s recipe's peer traffic does not go through dbrig's proxies (only %s's do): use link: client", rec.System(), strings.Join(recipesThat(routesPeers), "'s and "))
		}
		if f.For <= 0 {
			return nil, bad("for", "a %s needs for: how long until it heals", f.Kind)
		}
	}
	switch {
	case f.Kind == "pause" && f.For <= 0:
		return nil, bad("for", "a pause needs for: how long the node stays paused")
	case f.Kind == "command" && f.Heal != "" && f.For <= 0:
		return nil, bad("for", "a command with a heal command needs for: when to run the heal")
	}
	if err := checkKubeKeys(f, bad); err != nil {
		return nil, err
	}
	if err := checkTriggers(&f, bad); err != nil {
		return nil, err
	}
	return &entry{f: f, fault: fault}, nil
}

// checkTriggers checks an entry's timing (every, count, after, wait, when)
// and fills in stable_for's default; local and Kubernetes faults share it.
func checkTriggers(f *spec.Fault, bad func(key, format string, args ...any) error) error {
	switch {
	case f.Every > 0 && f.Every <= f.For:
		return bad("every", "%v: a recurring fault must end (for %v) before it starts again", f.Every, f.For)
	case f.Count > 1 && f.Every == 0:
		return bad("count", "count %d needs every: the period", f.Count)
	case f.After != "" && f.At != 0:
		return bad("at", "a fault that fires after another waits wait: after it ended, not at")
	case f.Wait != 0 && f.After == "":
		return bad("wait", "wait needs after: the fault to wait for")
	case f.When != "" && f.When != "stable":
		return bad("when", "%q: expected stable (fire once the system has been stable for stable_for)", f.When)
	case f.StableFor != 0 && f.When == "":
		return bad("stable_for", "stable_for needs when: stable")
	case f.When != "" && (f.Every != 0 || f.Count > 1):
		return bad("when", "a conditional fault fires once: leave every and count out")
	case f.After == f.Name && f.After != "":
		return bad("after", "%q waits for itself", f.After)
	}
	if f.When == "stable" && f.StableFor == 0 {
		f.StableFor = 10 * time.Second
	}
	return nil
}

// checkGroups: at least two groups, each node in one.
func checkGroups(groups [][]string) error {
	if len(groups) < 2 {
		return errors.New("a partition needs at least two groups")
	}
	seen := map[string]bool{}
	for _, g := range groups {
		if len(g) == 0 {
			return errors.New("an empty group")
		}
		for _, n := range g {
			if !looksLikeNode(n) {
				return fmt.Errorf("%q is not a node name", n)
			}
			if seen[n] {
				return fmt.Errorf("node %s is in two groups", n)
			}
			seen[n] = true
		}
	}
	return nil
}

// parseRate reads a bandwidth: bytes per second, with an optional unit
// (B, KB, MB, GB: powers of 1000; KiB, MiB, GiB: of 1024) and "/s".
func parseRate(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	t := strings.TrimSuffix(strings.TrimSpace(s), "/s")
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || v*mult < 1 || v*mult > 1e12 {
		return 0, fmt.Errorf("%q: expected bytes per second such as 500KB, 1MiB or 20000", s)
	}
	return int64(v * mult), nil
}

// checkOverlaps refuses faults on the same nodes whose windows overlap and
// that cannot both hold: two process faults (a node paused while it is
// killed), two network faults of one kind on one link (the first one's heal
// would undo the second), or anything on a node a kill or a removal left
// down for the rest of the run. nodesOf names the nodes a target hits (nil:
// not known before the run, such as leader): named nodes, and with the
// cluster's layout (checkPlannedOverlaps) static roles too. Two faults on
// one role target (leader) are checked for the network case only: a role is
// resolved when each fires, so a second fault on "leader" after a kill hits
// the new leader.
func checkOverlaps(e spec.Experiment, plan []Injection, byName map[string]*entry, nodesOf func(string) []string) error {
	end := func(in Injection) time.Duration {
		if in.For == 0 && !inject.Network(in.Fault.Name()) && (in.Fault.Name() == "kill" || in.Fault.Name() == "stop" || in.Fault.Name() == "remove-node") {
			return time.Duration(1<<63 - 1) // the node stays down
		}
		return in.At + max(in.For, time.Millisecond)
	}
	entryOf := func(in Injection) *entry {
		name, _, _ := strings.Cut(in.Name, "#")
		return byName[name]
	}
	for i, a := range plan {
		for _, b := range plan[i+1:] {
			if b.At >= end(a) || len(a.Groups)+len(b.Groups) > 0 || a.Stable+b.Stable > 0 {
				continue
			}
			if ea, eb := entryOf(a), entryOf(b); ea == eb {
				continue
			}
			common := firstCommon(nodesOf(a.Target), nodesOf(b.Target))
			if common == "" && a.Target != b.Target {
				continue
			}
			na, nb := inject.Network(a.Fault.Name()), inject.Network(b.Fault.Name())
			pa, pb := processFault(a.Fault.Name()), processFault(b.Fault.Name())
			on := common
			if common != "" && (a.Target != common || b.Target != common) {
				on = fmt.Sprintf("%s (the target of %s and of %s)", common, a.Target, b.Target)
			}
			why := ""
			switch {
			case common != "" && end(a) == time.Duration(1<<63-1):
				why = fmt.Sprintf("%s is down for the rest of the run after %s", on, a.Name)
			case common != "" && pa && pb:
				why = fmt.Sprintf("%s is under %s (%s) then", on, a.Name, a.Fault.Name())
			case na && nb && a.Fault.Name() == b.Fault.Name() && a.Link == b.Link:
				if common == "" {
					on = a.Target
				}
				why = fmt.Sprintf("%s already has a %s on its %s link then (%s); the first heal would undo both", on, a.Fault.Name(), a.Link, a.Name)
			}
			if why != "" {
				eb := entryOf(b)
				return faultErr(e, eb.f, "at", "%s at %v cannot hold: %s", b.Name, b.At, why)
			}
		}
	}
	return nil
}

// firstCommon is the first name in both lists, "" when none (or either is
// nil).
func firstCommon(a, b []string) string {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return x
			}
		}
	}
	return ""
}

// namedOnly knows the nodes of named targets only.
func namedOnly(target string) []string {
	if knownTargets[target] || strings.HasPrefix(target, "all") || strings.HasPrefix(target, "random-") || !looksLikeNode(target) {
		return nil
	}
	return []string{target}
}

// processFault tells the faults that act on a node's process.
func processFault(kind string) bool {
	switch kind {
	case "kill", "stop", "pause", "restart":
		return true
	}
	return false
}

// looksLikeNode accepts the names recipes give nodes (etcd1, replica2 …).
func looksLikeNode(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// nodes is what the injector needs of a cluster (a *cluster.Cluster).
type nodes interface {
	Resolve(ctx context.Context, target string) ([]cluster.Node, error)
	Restart(ctx context.Context, name string) (cluster.Node, error)
}

// injector fires a plan's injections on a cluster, timed from the start of
// the measure phase, and reports each as events through emit.
type injector struct {
	plan []Injection
	c    nodes
	net  *network // nil: the traffic does not go through proxies
	seed int64    // the run's: random targets choose with it
	// memberMu: one add-node or remove-node at a time (scenario_elastic.go)
	memberMu sync.Mutex
	emit     func(run.Event)
	start    chan time.Time // the measure phase's start
	wg       sync.WaitGroup
	once     sync.Once

	// for conditional triggers: per-second samples of the measure phase,
	// and when the first fault fired (the baseline is the calm before it)
	mu         sync.Mutex
	samples    []sample
	firedOnce  sync.Once
	firstFault atomic.Int64 // unix ns; 0: none yet
}

func newInjector(plan []Injection, c nodes, net *network, emit func(run.Event)) *injector {
	return &injector{plan: plan, c: c, net: net, emit: emit, start: make(chan time.Time, 1)}
}

// measureStarted starts the clock (once).
func (in *injector) measureStarted(t time.Time) {
	in.once.Do(func() { in.start <- t })
}

// run fires the injections until ctx ends (the run is over): a fault still
// waiting is not fired; one under way is healed before run returns. Each
// fires on its own, so a slow one (a stop's grace period) does not delay
// the next.
func (in *injector) run(ctx context.Context) {
	var t0 time.Time
	select {
	case t0 = <-in.start:
	case <-ctx.Done():
		return
	}
	defer in.wg.Wait()
	for _, inj := range in.plan {
		in.wg.Add(1)
		go func() {
			defer in.wg.Done()
			timer := time.NewTimer(time.Until(t0.Add(inj.At)))
			defer timer.Stop()
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
			note := ""
			if inj.Stable > 0 {
				armed := time.Now()
				if !in.stable(ctx, armed, inj.Stable) {
					in.emit(run.Event{Time: time.Now(), Kind: EventFault, Name: inj.Name, Detail: inj.Fault.Name() + " " + inj.Target,
						Outcome: fmt.Sprintf("failed: the system was not stable for %v before the run ended (armed at +%.3fs)", inj.Stable, armed.Sub(t0).Seconds())})
					return
				}
				note = fmt.Sprintf("; armed at +%.3fs, fired once stable for %v", armed.Sub(t0).Seconds(), inj.Stable)
			}
			in.fire(ctx, inj, t0, note)
		}()
	}
}

// target resolves what an injection acts on, now.
func (in *injector) target(ctx context.Context, inj Injection) ([]cluster.Node, inject.Target, []string, error) {
	if kf, ok := inj.Fault.(*kubeFault); ok {
		return nil, inject.Target{}, []string{"namespace " + kf.env.ns}, nil // it finds its pods itself
	}
	network := inject.Network(inj.Fault.Name())
	if network && in.net == nil {
		return nil, inject.Target{}, nil, inject.ErrNoLinks
	}
	if len(inj.Groups) > 0 {
		links, err := in.net.groupLinks(inj.Groups)
		var names []string
		for _, g := range inj.Groups {
			names = append(names, "["+strings.Join(g, " ")+"]")
		}
		return nil, inject.Target{Links: links}, names, err
	}
	var t inject.Target
	if elasticFault(inj.Fault.Name()) {
		m, err := in.membership()
		if err != nil {
			return nil, inject.Target{}, nil, err
		}
		t.Members = m
		if inj.Fault.Name() == "add-node" {
			return nil, t, []string{"a new " + inj.Target}, nil
		}
	}
	var nodes []cluster.Node
	var err error
	if n, role, random, _ := randomTarget(inj.Target); random {
		nodes, err = resolveRandom(ctx, in.c, n, role, in.seed, inj.Name)
	} else {
		nodes, err = in.c.Resolve(ctx, inj.Target)
	}
	if err != nil {
		return nil, inject.Target{}, nil, err
	}
	var names []string
	for _, n := range nodes {
		names = append(names, fmt.Sprintf("%s (%s, pid %d)", n.Name, n.Role, n.PID))
		t.Nodes = append(t.Nodes, n.Name)
		if !network {
			t.PIDs = append(t.PIDs, n.PID)
			continue
		}
		links, err := in.net.links(n.Name, inj.Link)
		if err != nil {
			return nil, inject.Target{}, nil, err
		}
		t.Links = append(t.Links, links...)
	}
	return nodes, t, names, nil
}

func (in *injector) fire(ctx context.Context, inj Injection, t0 time.Time, note string) {
	in.firedOnce.Do(func() { in.firstFault.Store(time.Now().UnixNano()) })
	actx := context.WithoutCancel(ctx)                    // a fault under way is finished, also at the end of the run
	lasts := inj.For > 0 || inj.Fault.Name() == "restart" // a restart lasts until the node is ready again
	name, kind := inj.Name, EventFault
	if lasts {
		kind = EventFaultStart
	}
	what := inj.Fault.Name() + " " + inj.Target
	if inj.Link != "" {
		what += " (" + inj.Link + " link)"
	}
	requested := time.Now()
	nodes, tg, names, err := in.target(actx, inj)
	if err != nil {
		in.emit(run.Event{Time: requested, Kind: EventFault, Name: name, Detail: what, Outcome: "failed: " + err.Error()})
		return
	}
	var did []string // what the fault says it did (add-node: the node it added)
	tg.Note = func(s string) { did = append(did, s) }
	ictx, cancel := context.WithTimeout(actx, 30*time.Second)
	err = inj.Fault.Inject(ictx, tg)
	cancel()
	if len(did) > 0 {
		note = "; " + strings.Join(did, "; ") + note
	}
	detail := fmt.Sprintf("%s: %v; planned at +%.3fs, fired at +%.3fs, applied in %v%s", what, names,
		inj.At.Seconds(), requested.Sub(t0).Seconds(), time.Since(requested).Round(time.Millisecond), note)
	outcome := "injected"
	if err != nil {
		outcome = "failed: " + err.Error()
	}
	in.emit(run.Event{Time: requested, Kind: kind, Name: name, Detail: detail, Outcome: outcome})
	if !lasts || err != nil {
		return
	}
	select {
	case <-time.After(time.Until(requested.Add(inj.For))):
	case <-ctx.Done(): // the run ended first: heal now
	}

	hctx, cancel := context.WithTimeout(actx, 30*time.Second)
	defer cancel()
	outcome = "healed"
	err = inj.Fault.Heal(hctx, tg)
	if errors.Is(err, inject.ErrNoHeal) {
		// A killed or stopped node comes back on its data dir, and is
		// healed when it is ready again (not merely started).
		err = nil
		for _, n := range nodes {
			if _, rerr := in.c.Restart(hctx, n.Name); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
		outcome = "healed: restarted and ready"
	}
	if err != nil {
		outcome = "failed: " + err.Error()
	}
	in.emit(run.Event{Time: time.Now(), Kind: EventFaultEnd, Name: inj.Name, Detail: detail, Outcome: outcome})
}

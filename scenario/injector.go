package scenario

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/run"
)

// Nodes is what the injector needs of a cluster (a *cluster.Cluster).
type Nodes interface {
	Resolve(ctx context.Context, target string) ([]cluster.Node, error)
	Restart(ctx context.Context, name string) (cluster.Node, error)
}

// Injector fires a plan's injections on a cluster, timed from the start of
// the measure phase, and reports each as events through emit.
type Injector struct {
	plan []Injection
	c    Nodes
	net  *Network // nil: the traffic does not go through proxies
	seed int64    // the run's: random targets choose with it
	// memberMu: one add-node or remove-node at a time (elastic.go)
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

func newInjector(plan []Injection, c Nodes, net *Network, emit func(run.Event)) *Injector {
	return &Injector{plan: plan, c: c, net: net, emit: emit, start: make(chan time.Time, 1)}
}

// NewInjector fires plan on the cluster c (nil: the faults act on
// Kubernetes only) through the network net (nil: the traffic does not go
// through proxies), choosing random targets with the run's seed, and
// passes each fault's events to emit. Start it with Run, and its clock
// with MeasureStarted; Watch lets its conditional triggers see the run.
func NewInjector(plan []Injection, c Nodes, net *Network, seed int64, emit func(run.Event)) *Injector {
	in := newInjector(plan, c, net, emit)
	in.seed = seed
	return in
}

// MeasureStarted starts the clock (once).
func (in *Injector) MeasureStarted(t time.Time) {
	in.once.Do(func() { in.start <- t })
}

// Run fires the injections until ctx ends (the run is over): a fault still
// waiting is not fired; one under way is healed before run returns. Each
// fires on its own, so a slow one (a stop's grace period) does not delay
// the next.
func (in *Injector) Run(ctx context.Context) {
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
func (in *Injector) target(ctx context.Context, inj Injection) ([]cluster.Node, inject.Target, []string, error) {
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

func (in *Injector) fire(ctx context.Context, inj Injection, t0 time.Time, note string) {
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

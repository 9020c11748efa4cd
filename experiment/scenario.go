package experiment

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/spec"
)

// Injection is one planned firing of a fault: resolved before the run, at
// an exact offset into the measure phase, so a run can be repeated.
type Injection struct {
	Name   string        // names its events
	Fault  inject.Fault  // what
	Target string        // a node name or a role, resolved when it fires
	At     time.Duration // offset into the measure phase
	For    time.Duration // until healed (0: instantaneous): a pause resumes, a killed or stopped node restarts
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

// scenarioPlan checks an experiment file's scenario and expands it into
// injections (recurring faults into one per firing), with the file's
// positions in errors.
func scenarioPlan(e spec.Experiment, measure time.Duration) ([]Injection, error) {
	if len(e.Scenario) == 0 {
		return nil, nil
	}
	if e.System.Cluster == nil {
		return nil, e.Errorf("scenario", "faults act on the nodes of a local cluster: give system.cluster")
	}
	var out []Injection
	seen := map[string]bool{}
	for _, f := range e.Scenario {
		bad := func(key, format string, args ...any) error {
			return &spec.FileError{Pos: f.Pos, Path: f.Path + "." + key, Msg: fmt.Sprintf(format, args...)}
		}
		fault, err := inject.New(f.Kind, 10*time.Second)
		if err != nil {
			return nil, bad("fault", "%v", err)
		}
		if role := strings.TrimPrefix(f.Target, "all-"); !knownTargets[role] && !looksLikeNode(f.Target) {
			return nil, bad("target", "%q: expected a node name (etcd1, primary …), a role (one node of it: leader, follower, primary, replica, member, any) or all-ROLE", f.Target)
		}
		if seen[f.Name] {
			return nil, bad("name", "%q names two faults", f.Name)
		}
		seen[f.Name] = true
		switch {
		case f.Kind == "pause" && f.For <= 0:
			return nil, bad("for", "a pause needs for: how long the node stays paused")
		case f.Every > 0 && f.Every <= f.For:
			return nil, bad("every", "%v: a recurring fault must end (for %v) before it starts again", f.Every, f.For)
		case f.Count > 1 && f.Every == 0:
			return nil, bad("count", "count %d needs every: the period", f.Count)
		}
		for k := 0; k < f.Count; k++ {
			at := f.At + time.Duration(k)*f.Every
			if measure > 0 && at+f.For > measure {
				return nil, bad("at", "fires at %v and lasts %v, past the measure phase's end (%v)", at, f.For, measure)
			}
			name := f.Name
			if f.Count > 1 {
				name = fmt.Sprintf("%s#%d", f.Name, k+1)
			}
			out = append(out, Injection{Name: name, Fault: fault, Target: f.Target, At: at, For: f.For})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out, nil
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

// injector fires a plan's injections on a cluster, timed from the start of
// the measure phase, and reports each as events through emit.
type injector struct {
	plan  []Injection
	c     *cluster.Cluster
	emit  func(run.Event)
	start chan time.Time // the measure phase's start
	wg    sync.WaitGroup
	once  sync.Once
}

func newInjector(plan []Injection, c *cluster.Cluster, emit func(run.Event)) *injector {
	return &injector{plan: plan, c: c, emit: emit, start: make(chan time.Time, 1)}
}

// measureStarted starts the clock (once).
func (in *injector) measureStarted(t time.Time) {
	in.once.Do(func() { in.start <- t })
}

// run fires the injections until ctx ends (the run is over): a fault still
// waiting is not fired; a pause under way is healed before run returns.
func (in *injector) run(ctx context.Context) {
	var t0 time.Time
	select {
	case t0 = <-in.start:
	case <-ctx.Done():
		return
	}
	for _, inj := range in.plan {
		timer := time.NewTimer(time.Until(t0.Add(inj.At)))
		select {
		case <-ctx.Done():
			timer.Stop()
			in.wg.Wait()
			return
		case <-timer.C:
		}
		in.fire(ctx, inj)
	}
	in.wg.Wait()
}

func (in *injector) fire(ctx context.Context, inj Injection) {
	actx := context.WithoutCancel(ctx) // a fault under way is finished, also at the end of the run
	lasts := inj.For > 0
	name, kind := inj.Name, EventFault
	if lasts {
		kind = EventFaultStart
	}
	nodes, err := in.c.Resolve(actx, inj.Target)
	if err != nil {
		in.emit(run.Event{Time: time.Now(), Kind: EventFault, Name: name, Detail: inj.Fault.Name() + " " + inj.Target, Outcome: "failed: " + err.Error()})
		return
	}
	var pids []int
	var names []string
	for _, n := range nodes {
		pids = append(pids, n.PID)
		names = append(names, fmt.Sprintf("%s (%s, pid %d)", n.Name, n.Role, n.PID))
	}
	detail := fmt.Sprintf("%s %s: %v", inj.Fault.Name(), inj.Target, names)
	requested := time.Now()
	ictx, cancel := context.WithTimeout(actx, 30*time.Second)
	err = inj.Fault.Inject(ictx, pids)
	cancel()
	outcome := "injected"
	if err != nil {
		outcome = "failed: " + err.Error()
	}
	in.emit(run.Event{Time: requested, Kind: kind, Name: name, Detail: detail, Outcome: outcome})
	if !lasts || err != nil {
		return
	}
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		select {
		case <-time.After(inj.For):
		case <-ctx.Done(): // the run ended first: heal now
		}
		hctx, cancel := context.WithTimeout(actx, 30*time.Second)
		defer cancel()
		outcome := "healed"
		err := inj.Fault.Heal(hctx, pids)
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
	}()
}

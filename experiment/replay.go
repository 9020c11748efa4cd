package experiment

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/results"
)

// The exact fault plan of a run is stored with it (results.FaultPlan):
// every firing with its fault, settings, target, link, offset and length,
// resolved from the scenario before the run started. ReplayBench runs an
// experiment file again with a stored run's plan and seed instead of the
// file's scenario and seed. A role (leader) stays a role: it is resolved
// when the fault fires, as in the original run, whose events say which node
// it was.

// storedPlan is a plan as the results store keeps it.
func storedPlan(plan []Injection) []results.PlannedFault {
	out := make([]results.PlannedFault, len(plan))
	for i, in := range plan {
		f := results.PlannedFault{Name: in.Name, Fault: in.Fault.Name(), Target: in.Target, Link: in.Link,
			Groups: in.Groups, AtMS: in.At.Milliseconds(), ForMS: in.For.Milliseconds(), StableMS: in.Stable.Milliseconds()}
		switch x := in.Fault.(type) {
		case inject.Delay:
			f.DelayUS, f.JitterUS = x.Delay.Microseconds(), x.Jitter.Microseconds()
		case inject.Bandwidth:
			f.Rate = x.Rate
		case inject.Drop:
			f.Mode = "reset"
			if x.Blackhole {
				f.Mode = "blackhole"
			}
		case inject.Restart:
			f.Mode = "stop"
			if x.Kill {
				f.Mode = "kill"
			}
		case inject.Command:
			// Never the text: a command may hold a secret. A replay takes
			// the commands from the experiment file and checks them.
			f.Run, f.Heal = digest(x.Run), digest(x.Undo)
		}
		out[i] = f
	}
	return out
}

// digest is how a command is stored: sha256:HEX ("" for none).
func digest(cmd string) string {
	if cmd == "" {
		return ""
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(cmd)))
}

// planOf rebuilds a stored plan's injections; a command fault takes its
// commands from the experiment file's fault of the same name (file), which
// must be the ones the run ran.
func planOf(stored []results.PlannedFault, file []Injection) ([]Injection, error) {
	commands := map[string]inject.Command{}
	for _, in := range file {
		if c, ok := in.Fault.(inject.Command); ok {
			name, _, _ := strings.Cut(in.Name, "#")
			commands[name] = c
		}
	}
	out := make([]Injection, len(stored))
	for i, f := range stored {
		o := inject.Options{Grace: 10 * time.Second, Delay: time.Duration(f.DelayUS) * time.Microsecond,
			Jitter: time.Duration(f.JitterUS) * time.Microsecond, Rate: f.Rate, Mode: f.Mode, Role: f.Target}
		if f.Fault == "command" {
			name, _, _ := strings.Cut(f.Name, "#")
			c, ok := commands[name]
			if !ok || digest(c.Run) != f.Run || digest(c.Undo) != f.Heal {
				return nil, fmt.Errorf("stored fault %s: the experiment file has no command fault %q with the commands the run ran (commands are stored only as digests)", f.Name, name)
			}
			o.Run, o.Heal = c.Run, c.Undo
		}
		fault, err := inject.New(f.Fault, o)
		if err != nil {
			return nil, fmt.Errorf("stored fault %s: %w", f.Name, err)
		}
		out[i] = Injection{Name: f.Name, Fault: fault, Target: f.Target, Link: f.Link, Groups: f.Groups,
			At: time.Duration(f.AtMS) * time.Millisecond, For: time.Duration(f.ForMS) * time.Millisecond,
			Stable: time.Duration(f.StableMS) * time.Millisecond}
	}
	return out, nil
}

// ErrNoPlan is returned when a run to replay has no stored fault plan.
var ErrNoPlan = errors.New("no fault plan stored with the run")

// ReplayBench resolves an experiment file to run again with the fault plan
// and seed of stored run runID. An empty path takes the file the run was
// started from (its stored command, dbrig bench FILE).
func ReplayBench(ctx context.Context, path string, runID int64, o BenchOptions) (*Bench, error) {
	store, err := results.Open(ctx, o.Store)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	d, err := store.Run(ctx, runID)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("--replay %d: %w", runID, err)}
	}
	stored, err := store.FaultPlan(ctx, runID)
	if err != nil {
		return nil, err
	}
	if len(stored) == 0 {
		return nil, &InputError{Err: fmt.Errorf("--replay %d: %w (it had no faults, or ran before dbrig stored plans)", runID, ErrNoPlan)}
	}
	if path == "" {
		f, ok := strings.CutPrefix(d.Info.Command, "dbrig bench ")
		if !ok || strings.TrimSpace(f) == "" {
			return nil, &InputError{Err: fmt.Errorf("--replay %d: the run was not started from an experiment file (%q): give the file", runID, d.Info.Command)}
		}
		path = strings.TrimSpace(f)
	}
	o.Sets = append(append([]string(nil), o.Sets...), fmt.Sprintf("seed=%d", d.Info.Load.Seed))
	b, err := ResolveBench(path, o)
	if err != nil {
		return nil, err
	}
	for _, r := range b.Runs {
		plan, err := planOf(stored, r.Plan.Faults)
		if err != nil {
			return nil, &InputError{Err: fmt.Errorf("--replay %d: %w", runID, err)}
		}
		if r.Plan.Cluster == nil {
			return nil, &InputError{Err: fmt.Errorf("--replay %d: %s has no local cluster to inject faults into", runID, path)}
		}
		for _, in := range plan {
			if d := r.Plan.Config.Duration; d > 0 && in.At+in.For > d {
				return nil, &InputError{Err: fmt.Errorf("--replay %d: fault %s (at %v for %v) outlasts the measure phase of %s (%v)",
					runID, in.Name, in.At, in.For, path, d)}
			}
		}
		r.Plan.Faults = plan
		r.Plan.Tags = append(r.Plan.Tags, fmt.Sprintf("replay:%d", runID))
	}
	return b, nil
}

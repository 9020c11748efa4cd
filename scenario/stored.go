package scenario

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/results"
)

// The exact fault plan of a run is stored with it (results.FaultPlan):
// every firing with its fault, settings, target, link, offset and length,
// resolved from the scenario before the run started, so a run can be
// replayed with it (experiment.ReplayBench).

// Stored is a plan as the results store keeps it (a command as a digest
// only).
func Stored(plan []Injection) []results.PlannedFault {
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

// FromStored rebuilds a stored plan's injections; a command fault takes its
// commands from the experiment file's fault of the same name (file), which
// must be the ones the run ran.
func FromStored(stored []results.PlannedFault, file []Injection) ([]Injection, error) {
	commands := map[string]inject.Command{}
	for _, in := range file {
		if c, ok := in.Fault.(inject.Command); ok {
			name, _, _ := strings.Cut(in.Name, "#")
			commands[name] = c
		}
	}
	out := make([]Injection, len(stored))
	for i, f := range stored {
		run, heal := "", ""
		if f.Fault == "command" {
			name, _, _ := strings.Cut(f.Name, "#")
			c, ok := commands[name]
			if !ok || digest(c.Run) != f.Run || digest(c.Undo) != f.Heal {
				return nil, fmt.Errorf("stored fault %s: the experiment file has no command fault %q with the commands the run ran (commands are stored only as digests)", f.Name, name)
			}
			run, heal = c.Run, c.Undo
		}
		fault, err := storedFault(f.Fault, f.Target, time.Duration(f.DelayUS)*time.Microsecond, time.Duration(f.JitterUS)*time.Microsecond, f.Rate, f.Mode, run, heal)
		if err != nil {
			return nil, fmt.Errorf("stored fault %s: %w", f.Name, err)
		}
		out[i] = Injection{Name: f.Name, Fault: fault, Target: f.Target, Link: f.Link, Groups: f.Groups,
			At: time.Duration(f.AtMS) * time.Millisecond, For: time.Duration(f.ForMS) * time.Millisecond,
			Stable: time.Duration(f.StableMS) * time.Millisecond}
	}
	return out, nil
}

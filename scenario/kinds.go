package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/spec"
)

// The kinds of fault a scenario entry can name on a local cluster, one
// type each, the way toxiproxy keeps its toxics: a kind says which of the
// entry's settings it takes, builds its inject.Fault from them (checked by
// the fault's own constructor), and checks the entry against the cluster
// (a network fault's link, a pause's length, an elastic fault's recipe).
// A setting the kind does not take is a mistake ("a kill fault has no
// rate"). What every entry shares (name, target, timing) is checked in
// checkEntry; the Kubernetes kinds are in kube.go.

// badFunc reports bad input at a key of the scenario entry.
type badFunc = func(key, format string, args ...any) error

// kind is one kind of local fault.
type kind interface {
	// settings are the entry's keys the kind takes besides name, fault,
	// target and timing.
	settings() []string
	// fault builds the fault from the entry's settings; an error names
	// the key of the setting at fault.
	fault(f spec.Fault) (inject.Fault, string, error)
	// check checks the entry against the cluster's recipe, and fills in
	// what it leaves to the kind (a network fault's link).
	check(f *spec.Fault, rec cluster.Recipe, bad badFunc) error
}

// kindNames are the local kinds in the order messages list them.
var kindNames = []string{"kill", "stop", "pause", "restart", "command", "partition", "delay", "bandwidth", "drop", "add-node", "remove-node"}

// kindOf is the local kind of a name (nil: none).
func kindOf(name string) kind {
	switch name {
	case "kill":
		return killKind{}
	case "stop":
		return stopKind{}
	case "pause":
		return pauseKind{}
	case "restart":
		return restartKind{}
	case "command":
		return commandKind{}
	case "partition":
		return partitionKind{}
	case "delay":
		return delayKind{}
	case "bandwidth":
		return bandwidthKind{}
	case "drop":
		return dropKind{}
	case "add-node":
		return addNodeKind{}
	case "remove-node":
		return removeNodeKind{}
	}
	return nil
}

// localSettings are the settings of the local kinds an entry gives, in the
// order they are checked.
func localSettings(f spec.Fault) []string {
	var keys []string
	for _, s := range []struct {
		key   string
		given bool
	}{{"delay", f.Delay != 0}, {"jitter", f.Jitter != 0}, {"rate", f.Rate != ""}, {"mode", f.Mode != ""},
		{"run", f.Run != ""}, {"heal", f.Heal != ""}, {"groups", len(f.Groups) > 0}, {"link", f.Link != ""}} {
		if s.given {
			keys = append(keys, s.key)
		}
	}
	return keys
}

// stopGrace is how long a stop (or a restart in stop mode) waits for the
// node to exit before it kills it.
const stopGrace = 10 * time.Second

// plain is a kind with no settings and no checks of its own.
type plain struct{}

func (plain) settings() []string                               { return nil }
func (plain) check(*spec.Fault, cluster.Recipe, badFunc) error { return nil }

// killKind: SIGKILL the target's processes; the node stays down.
type killKind struct{ plain }

func (killKind) fault(spec.Fault) (inject.Fault, string, error) { return inject.Kill{}, "", nil }

// stopKind: SIGTERM, SIGKILL after stopGrace; the node stays down.
type stopKind struct{ plain }

func (stopKind) fault(spec.Fault) (inject.Fault, string, error) {
	return inject.Stop{Grace: stopGrace}, "", nil
}

// pauseKind: SIGSTOP for the fault's length.
type pauseKind struct{ plain }

func (pauseKind) fault(spec.Fault) (inject.Fault, string, error) { return inject.Pause{}, "", nil }

func (pauseKind) check(f *spec.Fault, _ cluster.Recipe, bad badFunc) error {
	if f.For <= 0 {
		return bad("for", "a pause needs for: how long the node stays paused")
	}
	return nil
}

// restartKind: stop (mode: stop) or kill (mode: kill), then start again.
type restartKind struct{ plain }

func (restartKind) settings() []string { return []string{"mode"} }

func (restartKind) fault(f spec.Fault) (inject.Fault, string, error) {
	r, err := inject.NewRestart(f.Mode, stopGrace)
	return r, "mode", err
}

// commandKind: run a shell command, and heal's when it heals.
type commandKind struct{}

func (commandKind) settings() []string { return []string{"run", "heal"} }

func (commandKind) fault(f spec.Fault) (inject.Fault, string, error) {
	c, err := inject.NewCommand(f.Run, f.Heal)
	return c, "run", err
}

func (commandKind) check(f *spec.Fault, _ cluster.Recipe, bad badFunc) error {
	if f.Heal != "" && f.For <= 0 {
		return bad("for", "a command with a heal command needs for: when to run the heal")
	}
	return nil
}

// partitionKind: cut the target's links, or the links between groups.
type partitionKind struct{ netKind }

func (partitionKind) settings() []string { return []string{"link", "groups"} }

func (partitionKind) fault(spec.Fault) (inject.Fault, string, error) {
	return inject.Partition{}, "", nil
}

// delayKind: add delay ± jitter to the target's links.
type delayKind struct{ netKind }

func (delayKind) settings() []string { return []string{"link", "delay", "jitter"} }

func (delayKind) fault(f spec.Fault) (inject.Fault, string, error) {
	d, err := inject.NewDelay(f.Delay, f.Jitter)
	return d, "delay", err
}

// bandwidthKind: limit the target's links to rate bytes per second.
type bandwidthKind struct{ netKind }

func (bandwidthKind) settings() []string { return []string{"link", "rate"} }

func (bandwidthKind) fault(f spec.Fault) (inject.Fault, string, error) {
	rate, err := parseRate(f.Rate)
	if err != nil {
		return nil, "rate", err
	}
	b, err := inject.NewBandwidth(rate)
	return b, "rate", err
}

// dropKind: drop the connections over the target's links (mode: reset or
// blackhole).
type dropKind struct{ netKind }

func (dropKind) settings() []string { return []string{"link", "mode"} }

func (dropKind) fault(f spec.Fault) (inject.Fault, string, error) {
	d, err := inject.NewDrop(f.Mode)
	return d, "mode", err
}

// addNodeKind: add a node of the target role (elastic.go).
type addNodeKind struct{ elasticKind }

func (addNodeKind) fault(f spec.Fault) (inject.Fault, string, error) {
	return inject.AddNode{Role: f.Target}, "", nil
}

// removeNodeKind: take the target node(s) out (elastic.go).
type removeNodeKind struct{ elasticKind }

func (removeNodeKind) fault(spec.Fault) (inject.Fault, string, error) {
	return inject.RemoveNode{}, "", nil
}

// unknownKind is the error of a kind nobody knows.
func unknownKind(kind string) error {
	return fmt.Errorf("%w %q (expected one of %s)", inject.ErrUnknownFault, kind, strings.Join(kindNames, ", "))
}

// netKind is what the network kinds share: they act on the links of the
// target nodes through dbrig's proxies, client (dbrig ↔ the node) or peer
// (the node ↔ the other nodes), or on the peer links between groups, and
// last until healed.
type netKind struct{}

func (netKind) check(f *spec.Fault, rec cluster.Recipe, bad badFunc) error {
	switch {
	case len(f.Groups) > 0:
		if f.Link != "" && f.Link != "peer" {
			return bad("link", "a partition into groups cuts peer links: leave link out")
		}
		if sp, ok := rec.(cluster.StarPeers); ok {
			return bad("groups", "%s", sp.PartitionHint())
		}
		if err := checkGroups(f.Groups); err != nil {
			return bad("groups", "%v", err)
		}
		f.Link = "peer"
	case f.Link == "":
		f.Link = "client"
		if f.Kind == "partition" && routesPeers(rec) {
			f.Link = "peer"
		}
	case f.Link != "client" && f.Link != "peer":
		return bad("link", "%q: expected client (dbrig ↔ the node) or peer (the node ↔ the other nodes)", f.Link)
	}
	if f.Link == "peer" && !routesPeers(rec) {
		return bad("link", "the %s recipe's peer traffic does not go through dbrig's proxies (only %s's do): use link: client", rec.System(), strings.Join(recipesThat(routesPeers), "'s and "))
	}
	if f.For <= 0 {
		return bad("for", "a %s needs for: how long until it heals", f.Kind)
	}
	return nil
}

// storedFault is the fault of a stored plan's entry, from its settings
// (a command's from the experiment file: the store keeps digests only).
func storedFault(kind string, target string, delay, jitter time.Duration, rate int64, mode, run, heal string) (inject.Fault, error) {
	k := kindOf(kind)
	if k == nil {
		return nil, unknownKind(kind)
	}
	f := spec.Fault{Kind: kind, Target: target}
	f.Delay, f.Jitter, f.Mode, f.Run, f.Heal = delay, jitter, mode, run, heal
	if rate != 0 {
		f.Rate = strconv.FormatInt(rate, 10)
	}
	fault, _, err := k.fault(f)
	return fault, err
}

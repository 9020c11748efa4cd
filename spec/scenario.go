package spec

import (
	"fmt"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// FaultNet holds a scenario entry's settings beyond kind, target and time:
// those of the network faults (partition, delay, bandwidth, drop) and the
// dependent trigger. Package scenario checks what they mean (each fault
// kind the settings it takes).
type FaultNet struct {
	Link   string     // client (dbrig ↔ the node) or peer (the node ↔ the other nodes)
	Groups [][]string // partition: the cluster split into these groups of node names
	Delay  time.Duration
	Jitter time.Duration
	Rate   string // bandwidth: bytes per second, e.g. 100KB, 1MB, 500
	Mode   string // drop: reset or blackhole; restart: stop or kill
	Run    string // command: the shell command
	Heal   string // command: the shell command that undoes it
	After  string // fire after the scenario entry of this name ended …
	Wait   time.Duration
	// … and this long after it (with After; At must not be given then)
	When      string        // "stable": once armed (at, or after + wait), fire when the system is stable …
	StableFor time.Duration // … for this long (default 10s): per-second p99 within the baseline band, no errors

	// Kubernetes faults (pod-delete, pod-kill, scale, cordon, drain):
	Replicas  int           // scale: the StatefulSet's replicas during the fault (required)
	Pick      string        // a pods/SELECTOR target: all (default), one (first by name) or random (one, by the run's seed)
	Signal    string        // pod-kill: TERM (default for PID 1), KILL, …
	Process   string        // pod-kill: a PID (default 1) or a process name
	Container string        // pod-kill: the container (default: the pod's first)
	Grace     time.Duration // pod-delete: the grace period (default 0: at once)
	HealWait  time.Duration // how long healing waits for the pods to be ready again (default 25s)
}

// faultFields are the keys of one scenario entry.
func (d *decoder) faultFields(f *Fault) map[string]func(*yaml.Node, string) error {
	return map[string]func(*yaml.Node, string) error{
		"name":       d.str(&f.Name),
		"fault":      d.str(&f.Kind),
		"target":     d.str(&f.Target),
		"at":         d.duration(&f.At),
		"for":        d.duration(&f.For),
		"every":      d.duration(&f.Every),
		"count":      d.int(&f.Count, 1),
		"link":       d.str(&f.Link),
		"groups":     d.groups(&f.Groups),
		"delay":      d.duration(&f.Delay),
		"jitter":     d.duration(&f.Jitter),
		"rate":       d.str(&f.Rate),
		"mode":       d.str(&f.Mode),
		"run":        d.str(&f.Run),
		"heal":       d.str(&f.Heal),
		"after":      d.str(&f.After),
		"wait":       d.duration(&f.Wait),
		"when":       d.str(&f.When),
		"stable_for": d.duration(&f.StableFor),
		"replicas":   d.int(&f.Replicas, 0),
		"pick":       d.str(&f.Pick),
		"signal":     d.str(&f.Signal),
		"process":    d.str(&f.Process),
		"container":  d.str(&f.Container),
		"grace":      d.duration(&f.Grace),
		"heal_wait":  d.duration(&f.HealWait),
	}
}

// groups reads a list of lists of node names: [[etcd1], [etcd2, etcd3]].
func (d *decoder) groups(dst *[][]string) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		if n.Kind != yaml.SequenceNode {
			return d.errorf(n, p, "expected a list of groups of node names, e.g. [[etcd1], [etcd2, etcd3]]")
		}
		*dst = nil
		for i, g := range n.Content {
			var names []string
			if err := d.strs(&names)(g, fmt.Sprintf("%s[%d]", p, i)); err != nil {
				return err
			}
			*dst = append(*dst, names)
		}
		return nil
	}
}

package scenario

import (
	"slices"
	"strings"

	"github.com/dbrig/dbrig/inject/kube"
	"github.com/dbrig/dbrig/spec"
)

// The kinds of Kubernetes fault, one type each like the local kinds
// (kinds.go): a kind lists the settings it takes of its own (every kind
// takes target, pick and heal_wait) and checks what only it needs of an
// entry; kubeEntry checks what they share.

// kubeKind is one kind of Kubernetes fault.
type kubeKind interface {
	// settings are the entry's keys only this kind takes.
	settings() []string
	// check checks the entry's target t and settings for this kind;
	// hasReplicas tells whether the file gives replicas (0 is a value).
	check(f spec.Fault, t kube.Target, hasReplicas bool, bad badFunc) error
}

// kubeKindOf is the Kubernetes kind of a name (nil: none).
func kubeKindOf(name string) kubeKind {
	switch name {
	case "pod-delete":
		return podDeleteKind{}
	case "pod-kill":
		return podKillKind{}
	case "scale":
		return scaleKind{}
	case "cordon", "drain":
		return nodeKind{}
	}
	return nil
}

// kubeSettings are the settings of Kubernetes kinds an entry gives, in the
// order they are checked.
func kubeSettings(f spec.Fault, hasReplicas bool) []string {
	var keys []string
	for _, s := range []struct {
		key   string
		given bool
	}{{"replicas", hasReplicas}, {"signal", f.Signal != ""}, {"process", f.Process != ""}, {"container", f.Container != ""}, {"grace", f.Grace != 0}} {
		if s.given {
			keys = append(keys, s.key)
		}
	}
	return keys
}

// kindsTaking are the Kubernetes kinds that take a setting, in kube.Kinds'
// order.
func kindsTaking(key string) []string {
	var out []string
	for _, name := range kube.Kinds() {
		if slices.Contains(kubeKindOf(name).settings(), key) {
			out = append(out, name)
		}
	}
	return out
}

// checkKubeSettings refuses a setting of another Kubernetes kind.
func checkKubeSettings(k kubeKind, f spec.Fault, hasReplicas bool, bad badFunc) error {
	for _, key := range kubeSettings(f, hasReplicas) {
		if !slices.Contains(k.settings(), key) {
			return bad(key, "a %s fault has no %s (only %s)", f.Kind, key, strings.Join(kindsTaking(key), ", "))
		}
	}
	return nil
}

// onPods refuses a node target for a kind that acts on pods.
func onPods(f spec.Fault, t kube.Target, bad badFunc) error {
	if t.Node != "" {
		return bad("target", "%s acts on pods: a node is a target of cordon and drain only", f.Kind)
	}
	return nil
}

// podDeleteKind deletes pods (grace: the grace period).
type podDeleteKind struct{}

func (podDeleteKind) settings() []string { return []string{"grace"} }

func (podDeleteKind) check(f spec.Fault, t kube.Target, _ bool, bad badFunc) error {
	if err := onPods(f, t, bad); err != nil {
		return err
	}
	if f.Grace < 0 {
		return bad("grace", "%v: a grace period is ≥ 0", f.Grace)
	}
	return nil
}

// podKillKind signals a process in a container (signal, process,
// container); instantaneous: the container restarts by itself.
type podKillKind struct{}

func (podKillKind) settings() []string { return []string{"signal", "process", "container"} }

func (podKillKind) check(f spec.Fault, t kube.Target, _ bool, bad badFunc) error {
	if err := onPods(f, t, bad); err != nil {
		return err
	}
	if f.For > 0 {
		return bad("for", "a pod-kill is instantaneous: the container restarts by itself; leave for out")
	}
	return nil
}

// scaleKind sets a StatefulSet's replicas for the fault's length.
type scaleKind struct{}

func (scaleKind) settings() []string { return []string{"replicas"} }

func (scaleKind) check(f spec.Fault, t kube.Target, hasReplicas bool, bad badFunc) error {
	switch {
	case t.StatefulSet == "" || t.Ordinal >= 0:
		return bad("target", "scale acts on a StatefulSet: target: statefulset/NAME (no ordinal), not %q", f.Target)
	case !hasReplicas:
		return bad("fault", "scale needs replicas: the StatefulSet's replicas during the fault (e.g. replicas: 5)")
	case f.Pick != "":
		return bad("pick", "pick chooses among several pods: give a target pods/SELECTOR or statefulset/NAME")
	}
	return nil
}

// nodeKind is cordon and drain: a node, or the node of the target pods.
type nodeKind struct{}

func (nodeKind) settings() []string                                 { return nil }
func (nodeKind) check(spec.Fault, kube.Target, bool, badFunc) error { return nil }

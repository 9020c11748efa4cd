// Package kube holds faults on Kubernetes targets, through the API: delete a
// pod (pod-delete), kill the database process in a pod (pod-kill, an exec of
// kill), scale a StatefulSet (scale), cordon or drain a node (cordon, drain).
// Each is an inject.Fault; it carries its own target (pods by name, by label,
// or a StatefulSet's ordinal) since inject.Target names local PIDs and links.
package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/dbrig/dbrig/inject"
)

// Target names pods: one by Pod name, the ordinal-th pod of a StatefulSet
// (its pods are named STS-ORDINAL), or every pod matching Selector (a label
// selector); Pick "one" takes the first by name of those.
type Target struct {
	Namespace   string
	Pod         string
	StatefulSet string
	Ordinal     int // with StatefulSet; -1 = every pod of it
	Selector    string
	Pick        string // "" or "all": every pod; "one": the first by name
	Node        string // cordon, drain: a node by name (else the node of the target pod)
	// Leader: the pod of the system's leader, found when the fault fires
	// (package experiment sets Pod then); Pods refuses it unresolved.
	Leader bool
}

func (t Target) String() string {
	switch {
	case t.Leader && t.Pod == "":
		return "the leader's pod in " + t.Namespace
	case t.Node != "" && t.Pod == "" && t.Selector == "" && t.StatefulSet == "":
		return "node " + t.Node
	case t.Pod != "":
		return "pod " + t.Namespace + "/" + t.Pod
	case t.StatefulSet != "" && t.Ordinal >= 0:
		return fmt.Sprintf("pod %s/%s-%d", t.Namespace, t.StatefulSet, t.Ordinal)
	case t.StatefulSet != "":
		return "statefulset " + t.Namespace + "/" + t.StatefulSet
	}
	return "pods " + t.Namespace + " -l " + t.Selector
}

// ErrNoTarget: the target names no pod at the moment the fault fires.
var ErrNoTarget = errors.New("no pod matches the fault's target")

// Pods returns the target's pods now, sorted by name.
func (t Target) Pods(ctx context.Context, c kubernetes.Interface) ([]corev1.Pod, error) {
	var pods []corev1.Pod
	switch {
	case t.Leader && t.Pod == "":
		return nil, fmt.Errorf("%w: the leader's pod was not resolved", ErrNoTarget)
	case t.Pod != "" || (t.StatefulSet != "" && t.Ordinal >= 0):
		name := t.Pod
		if name == "" {
			name = t.StatefulSet + "-" + strconv.Itoa(t.Ordinal)
		}
		p, err := c.CoreV1().Pods(t.Namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%w: %s", ErrNoTarget, t)
		}
		if err != nil {
			return nil, fmt.Errorf("kube: get pod %s/%s: %w", t.Namespace, name, err)
		}
		pods = []corev1.Pod{*p}
	default:
		sel := t.Selector
		if t.StatefulSet != "" {
			sts, err := c.AppsV1().StatefulSets(t.Namespace).Get(ctx, t.StatefulSet, metav1.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("kube: statefulset %s/%s: %w", t.Namespace, t.StatefulSet, err)
			}
			sel = metav1.FormatLabelSelector(sts.Spec.Selector)
		}
		l, err := c.CoreV1().Pods(t.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return nil, fmt.Errorf("kube: list pods %s -l %s: %w", t.Namespace, sel, err)
		}
		for _, p := range l.Items {
			if p.DeletionTimestamp == nil {
				pods = append(pods, p)
			}
		}
		sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
		if len(pods) == 0 {
			return nil, fmt.Errorf("%w: %s", ErrNoTarget, t)
		}
		if t.Pick == "one" {
			pods = pods[:1]
		}
	}
	return pods, nil
}

// Check rejects a target that names nothing or too much.
func (t Target) Check(needPods bool) error {
	n := 0
	for _, set := range []bool{t.Pod != "" || t.Leader, t.StatefulSet != "", t.Selector != ""} {
		if set {
			n++
		}
	}
	switch {
	case t.Namespace == "" && (n > 0 || needPods):
		return fmt.Errorf("%w: a Kubernetes target needs a namespace", inject.ErrBadOption)
	case n > 1:
		return fmt.Errorf("%w: name the pods one way: pod, statefulset (with ordinal) or selector", inject.ErrBadOption)
	case needPods && n == 0:
		return fmt.Errorf("%w: a Kubernetes target needs pod, statefulset or selector", inject.ErrBadOption)
	case t.Pick != "" && t.Pick != "all" && t.Pick != "one":
		return fmt.Errorf("%w: pick %q (expected all or one)", inject.ErrBadOption, t.Pick)
	}
	if t.Selector != "" {
		if _, err := metav1.ParseToLabelSelector(t.Selector); err != nil {
			return fmt.Errorf("%w: selector %q: %w", inject.ErrBadOption, t.Selector, err)
		}
	}
	return nil
}

// Options are the settings of a Kubernetes fault.
type Options struct {
	Target
	Grace     time.Duration // pod-delete: grace period (0: immediately)
	Signal    string        // pod-kill: KILL (default), TERM, …
	Process   string        // pod-kill: a PID (default 1) or a process name (pkill)
	Container string        // pod-kill: the container (default: the pod's first)
	Replicas  int           // scale: the StatefulSet's replicas during the fault
	Wait      time.Duration // how long Heal (and pod-kill's check) waits (default 2m)
}

// Kinds lists the faults New knows.
func Kinds() []string { return []string{"pod-delete", "pod-kill", "scale", "cordon", "drain"} }

// Exec runs a command in a container (pod-kill); NewExec gives the real one.
type Exec interface {
	Exec(ctx context.Context, namespace, pod, container string, cmd []string) (stdout, stderr string, err error)
}

// New returns the fault of a kind, its settings checked. ex is needed by
// pod-kill only.
func New(kind string, o Options, c kubernetes.Interface, ex Exec) (inject.Fault, error) {
	if o.Wait == 0 {
		o.Wait = 2 * time.Minute
	}
	if o.StatefulSet == "" {
		o.Ordinal = -1
	}
	switch kind {
	case "pod-delete":
		if err := o.Check(true); err != nil {
			return nil, err
		}
		if o.Grace < 0 {
			return nil, fmt.Errorf("%w: pod-delete grace %v < 0", inject.ErrBadOption, o.Grace)
		}
		return &PodDelete{C: c, T: o.Target, Grace: o.Grace, Wait: o.Wait}, nil
	case "pod-kill":
		if err := o.Check(true); err != nil {
			return nil, err
		}
		proc := o.Process
		if proc == "" {
			proc = "1"
		}
		sig := strings.TrimPrefix(strings.ToUpper(o.Signal), "SIG")
		switch {
		case sig == "" && proc == "1":
			sig = "TERM"
		case sig == "":
			sig = "KILL"
		case !validSignal(sig):
			return nil, fmt.Errorf("%w: pod-kill signal %q (expected KILL, TERM, INT, QUIT, HUP, STOP or a number)", inject.ErrBadOption, o.Signal)
		case proc == "1" && (sig == "KILL" || sig == "9" || sig == "STOP" || sig == "19"):
			return nil, fmt.Errorf("%w: pod-kill signal %s to PID 1: a container's first process ignores it when sent from inside the container; name the database process (process: postgres) or use signal TERM", inject.ErrBadOption, sig)
		}
		if strings.ContainsAny(proc, " '\"$`;|&<>\\") {
			return nil, fmt.Errorf("%w: pod-kill process %q: a PID or a plain process name", inject.ErrBadOption, proc)
		}
		if ex == nil {
			return nil, fmt.Errorf("%w: pod-kill needs an exec client", inject.ErrBadOption)
		}
		return &PodKill{C: c, Ex: ex, T: o.Target, Signal: sig, Process: proc, Container: o.Container, Wait: o.Wait}, nil
	case "scale":
		if o.StatefulSet == "" || o.Namespace == "" || o.Pod != "" || o.Selector != "" {
			return nil, fmt.Errorf("%w: scale needs namespace and statefulset (and nothing else)", inject.ErrBadOption)
		}
		if o.Replicas < 0 {
			return nil, fmt.Errorf("%w: scale replicas %d < 0", inject.ErrBadOption, o.Replicas)
		}
		return &Scale{C: c, Namespace: o.Namespace, StatefulSet: o.StatefulSet, Replicas: int32(o.Replicas), Wait: o.Wait}, nil
	case "cordon", "drain":
		if o.Node == "" {
			if err := o.Check(true); err != nil {
				return nil, fmt.Errorf("%w (or a node)", err)
			}
		} else if err := o.Check(false); err != nil {
			return nil, err
		}
		return &Cordon{C: c, T: o.Target, Drain: kind == "drain", Wait: o.Wait}, nil
	}
	return nil, fmt.Errorf("%w %q (expected one of %s)", inject.ErrUnknownFault, kind, strings.Join(Kinds(), ", "))
}

func validSignal(s string) bool {
	if n, err := strconv.Atoi(s); err == nil {
		return n > 0 && n < 65
	}
	switch s {
	case "KILL", "TERM", "INT", "QUIT", "HUP", "STOP", "CONT", "USR1", "USR2":
		return true
	}
	return false
}

// PodDelete deletes the target's pods; Heal waits until as many pods of the
// target run and are ready again, none of them a deleted one.
type PodDelete struct {
	C     kubernetes.Interface
	T     Target
	Grace time.Duration
	Wait  time.Duration

	deleted map[types.UID]bool
	count   int
}

// Name implements inject.Fault.
func (f *PodDelete) Name() string { return "pod-delete" }

// Inject implements inject.Fault.
func (f *PodDelete) Inject(ctx context.Context, _ inject.Target) error {
	pods, err := f.T.Pods(ctx, f.C)
	if err != nil {
		return err
	}
	grace := int64(f.Grace / time.Second)
	f.deleted, f.count = map[types.UID]bool{}, len(pods)
	for _, p := range pods {
		err := f.C.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{
			GracePeriodSeconds: &grace,
			Preconditions:      &metav1.Preconditions{UID: &p.UID},
		})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("kube: delete pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		f.deleted[p.UID] = true
	}
	return nil
}

// Heal implements inject.Fault: the controller's replacements are ready.
func (f *PodDelete) Heal(ctx context.Context, _ inject.Target) error {
	if f.deleted == nil {
		return nil
	}
	return waitUntil(ctx, f.Wait, fmt.Sprintf("%d ready replacement pods for %s", f.count, f.T), func() (bool, error) {
		pods, err := f.T.Pods(ctx, f.C)
		if errors.Is(err, ErrNoTarget) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		ready := 0
		for _, p := range pods {
			if !f.deleted[p.UID] && podReady(&p) {
				ready++
			}
		}
		return ready >= f.count, nil
	})
}

// PodKill kills a process in the target's pods by exec: `kill -SIGNAL PID`,
// or `pkill -SIGNAL -x NAME` (the image needs kill or pkill). PID 1 of a
// container ignores a signal sent from inside its namespace unless it
// handles it (KILL and STOP never: New refuses them), so for PID 1 (signal
// TERM by default) Inject checks that the container stopped or restarted.
type PodKill struct {
	C         kubernetes.Interface
	Ex        Exec
	T         Target
	Signal    string
	Process   string
	Container string
	Wait      time.Duration

	restarts map[string]int32 // pod/container → restart count before
}

// Name implements inject.Fault.
func (f *PodKill) Name() string { return "pod-kill" }

func (f *PodKill) command() []string {
	if _, err := strconv.Atoi(f.Process); err == nil {
		return []string{"kill", "-" + f.Signal, f.Process}
	}
	return []string{"pkill", "-" + f.Signal, "-x", f.Process}
}

func (f *PodKill) container(p *corev1.Pod) string {
	if f.Container != "" {
		return f.Container
	}
	if len(p.Spec.Containers) > 0 {
		return p.Spec.Containers[0].Name
	}
	return ""
}

func restartCount(p *corev1.Pod, container string) (int32, bool) {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == container {
			return cs.RestartCount, cs.State.Terminated != nil || cs.State.Waiting != nil
		}
	}
	return 0, false
}

// Inject implements inject.Fault.
func (f *PodKill) Inject(ctx context.Context, _ inject.Target) error {
	pods, err := f.T.Pods(ctx, f.C)
	if err != nil {
		return err
	}
	f.restarts = map[string]int32{}
	for i := range pods {
		p := &pods[i]
		c := f.container(p)
		n, _ := restartCount(p, c)
		f.restarts[p.Name+"/"+c] = n
		if _, stderr, err := f.Ex.Exec(ctx, p.Namespace, p.Name, c, f.command()); err != nil {
			// The exec stream often ends with an error when the killed
			// process was the container's: the check below decides.
			if !strings.Contains(err.Error(), "exit code 137") && !isStreamEnd(err) {
				return fmt.Errorf("kube: exec %q in %s/%s (%s): %w %s", strings.Join(f.command(), " "), p.Namespace, p.Name, c, err, strings.TrimSpace(stderr))
			}
		}
	}
	if f.Process != "1" {
		return nil // another process than the container's own: no restart to see
	}
	return waitUntil(ctx, f.Wait, "the killed containers to stop or restart", func() (bool, error) {
		for key, before := range f.restarts {
			name, c, _ := strings.Cut(key, "/")
			p, err := f.C.CoreV1().Pods(f.T.Namespace).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return false, err
			}
			if n, down := restartCount(p, c); n == before && !down {
				return false, nil
			}
		}
		return true, nil
	})
}

func isStreamEnd(err error) bool {
	s := err.Error()
	return strings.Contains(s, "EOF") || strings.Contains(s, "connection reset") || strings.Contains(s, "command terminated")
}

// Heal implements inject.Fault: the killed containers run and are ready.
func (f *PodKill) Heal(ctx context.Context, _ inject.Target) error {
	return waitUntil(ctx, f.Wait, "the killed pods to be ready", func() (bool, error) {
		for key := range f.restarts {
			name, _, _ := strings.Cut(key, "/")
			p, err := f.C.CoreV1().Pods(f.T.Namespace).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			if !podReady(p) {
				return false, nil
			}
		}
		return true, nil
	})
}

// Scale sets a StatefulSet's replicas (elasticity: scale out or in during
// the run); Heal restores the number it had and waits for its ready pods.
type Scale struct {
	C           kubernetes.Interface
	Namespace   string
	StatefulSet string
	Replicas    int32
	Wait        time.Duration

	before *int32
}

// Name implements inject.Fault.
func (f *Scale) Name() string { return "scale" }

func (f *Scale) set(ctx context.Context, n int32) error {
	patch := []byte(`{"spec":{"replicas":` + strconv.Itoa(int(n)) + `}}`)
	if _, err := f.C.AppsV1().StatefulSets(f.Namespace).Patch(ctx, f.StatefulSet, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("kube: scale statefulset %s/%s to %d: %w", f.Namespace, f.StatefulSet, n, err)
	}
	return nil
}

// Inject implements inject.Fault.
func (f *Scale) Inject(ctx context.Context, _ inject.Target) error {
	sts, err := f.C.AppsV1().StatefulSets(f.Namespace).Get(ctx, f.StatefulSet, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("kube: statefulset %s/%s: %w", f.Namespace, f.StatefulSet, err)
	}
	n := int32(1)
	if sts.Spec.Replicas != nil {
		n = *sts.Spec.Replicas
	}
	f.before = &n
	return f.set(ctx, f.Replicas)
}

// Heal implements inject.Fault.
func (f *Scale) Heal(ctx context.Context, _ inject.Target) error {
	if f.before == nil {
		return nil
	}
	n := *f.before
	if err := f.set(ctx, n); err != nil {
		return err
	}
	return waitUntil(ctx, f.Wait, fmt.Sprintf("statefulset %s/%s back to %d ready replicas", f.Namespace, f.StatefulSet, n), func() (bool, error) {
		sts, err := f.C.AppsV1().StatefulSets(f.Namespace).Get(ctx, f.StatefulSet, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return sts.Status.ReadyReplicas == n && sts.Status.Replicas == n, nil
	})
}

// Cordon marks a node unschedulable (the node named, or the one the target
// pod runs on); with Drain it also evicts the node's pods (not those of a
// DaemonSet, nor mirror pods), through the Eviction API, so disruption
// budgets hold. Heal makes the node schedulable again; evicted pods come
// back where their controllers put them.
type Cordon struct {
	C     kubernetes.Interface
	T     Target
	Drain bool
	Wait  time.Duration

	node string
}

// Name implements inject.Fault.
func (f *Cordon) Name() string {
	if f.Drain {
		return "drain"
	}
	return "cordon"
}

func (f *Cordon) setUnschedulable(ctx context.Context, v bool) error {
	patch := []byte(`{"spec":{"unschedulable":` + strconv.FormatBool(v) + `}}`)
	if _, err := f.C.CoreV1().Nodes().Patch(ctx, f.node, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("kube: set node %s unschedulable=%v: %w", f.node, v, err)
	}
	return nil
}

// Inject implements inject.Fault.
func (f *Cordon) Inject(ctx context.Context, _ inject.Target) error {
	f.node = f.T.Node
	if f.node == "" {
		pods, err := f.T.Pods(ctx, f.C)
		if err != nil {
			return err
		}
		if f.node = pods[0].Spec.NodeName; f.node == "" {
			return fmt.Errorf("%w: pod %s is not scheduled on a node yet", ErrNoTarget, pods[0].Name)
		}
	}
	if err := f.setUnschedulable(ctx, true); err != nil {
		return err
	}
	if !f.Drain {
		return nil
	}
	l, err := f.C.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + f.node})
	if err != nil {
		return fmt.Errorf("kube: pods on node %s: %w", f.node, err)
	}
	var errs []error
	for _, p := range l.Items {
		if p.Spec.NodeName != f.node || skipDrain(&p) {
			continue // a fake API may ignore the field selector
		}
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}}
		if err := f.C.PolicyV1().Evictions(p.Namespace).Evict(ctx, ev); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("kube: evict pod %s/%s from node %s: %w", p.Namespace, p.Name, f.node, err))
		}
	}
	return errors.Join(errs...)
}

func skipDrain(p *corev1.Pod) bool {
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return true
	}
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return true
		}
	}
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// Heal implements inject.Fault.
func (f *Cordon) Heal(ctx context.Context, _ inject.Target) error {
	if f.node == "" {
		return nil
	}
	return f.setUnschedulable(ctx, false)
}

func podReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// waitUntil polls cond every 200 ms for at most d.
func waitUntil(ctx context.Context, d time.Duration, what string, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("kube: waiting for %s: %w", what, err)
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kube: %s did not happen within %v: %w", what, d, ctx.Err())
		case <-t.C:
		}
	}
}

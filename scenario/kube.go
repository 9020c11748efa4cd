package scenario

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/inject/kube"
	"github.com/dbrig/dbrig/k8s"
	"github.com/dbrig/dbrig/spec"
)

// Faults on Kubernetes targets in a scenario: `fault: pod-delete` (pod-kill,
// scale, cordon, drain) with a target such as pod/etcd-0,
// statefulset/etcd:1, pods/app=etcd or leader, acting through the API
// server of the file's kubernetes: section. They take the same triggers as
// local faults (at/for/every/count, after+wait, when: stable) and emit the
// same events, so analysis.Impacts treats them alike. Before the run is
// stored, KubeStart connects and asks the API server whether the namespace
// exists and the caller may do what the scenario's faults do.

// isKube tells the faults that act on Kubernetes.
func isKube(kind string) bool { return kubeKindOf(kind) != nil }

// kubeEnv is the API server of an experiment's kubernetes: section, shared
// by its Kubernetes faults; connected once, by KubeStart.
type kubeEnv struct {
	sec    spec.Kubernetes
	driver string            // the system's driver: whom to ask for the leader
	props  map[string]string // its properties (system.props): where to ask

	mu     sync.Mutex
	c      kubernetes.Interface // set by connect (or by a test)
	cfg    *rest.Config         // nil with a test's client: pod-kill cannot exec then
	ns     string
	seed   int64                                          // the run's: pick: random chooses with it
	leader func(ctx context.Context) (kube.Member, error) // nil: by driver (kube_leader.go)
	perms  map[k8s.Permission]bool                        // what the scenario's faults do
}

func newKubeEnv(e spec.Experiment) *kubeEnv {
	k := &kubeEnv{driver: e.System.Driver, props: e.System.Props, perms: map[k8s.Permission]bool{}}
	if e.Kubernetes != nil {
		k.sec = *e.Kubernetes
	}
	return k
}

// connect builds the client the way kubectl does (kubeconfig, else
// $KUBECONFIG, else ~/.kube/config, else the pod's service account; the
// section's context or the current one; its namespace or the context's or
// default). Nothing is contacted yet.
func (k *kubeEnv) connect() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.c != nil {
		if k.ns == "" {
			k.ns = cmpOr(k.sec.Namespace, "default")
		}
		return nil
	}
	var cfg *rest.Config
	ns := k.sec.Namespace
	if k.sec.InCluster {
		var err error
		if cfg, err = rest.InClusterConfig(); err != nil {
			return fmt.Errorf("%w: kubernetes.in_cluster: %w", k8s.ErrUnreachable, err)
		}
		if ns == "" {
			ns = inClusterNamespace()
		}
	} else {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = k.sec.Kubeconfig
		cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: k.sec.Context})
		var err error
		if cfg, err = cc.ClientConfig(); err != nil {
			return fmt.Errorf("%w: kubeconfig: %w (set kubernetes.kubeconfig or KUBECONFIG, or kubernetes.context)", k8s.ErrUnreachable, err)
		}
		if ns == "" {
			if ns, _, err = cc.Namespace(); err != nil || ns == "" {
				ns = "default"
			}
		}
	}
	cfg.Timeout = 30 * time.Second
	cfg.UserAgent = "dbrig"
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("k8s: client for %s: %w", cfg.Host, err)
	}
	k.c, k.cfg, k.ns = c, cfg, ns
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// KubeStart connects the plan's Kubernetes faults to their API server and
// runs the preflight (reachable, namespace, every permission the faults
// need by SelfSubjectAccessReview) before anything is stored or loaded;
// seed is the run's (pick: random chooses with it). Bad input is a
// *BadInput.
func KubeStart(ctx context.Context, plan []Injection, seed int64) error {
	k := planKubeEnv(plan)
	if k == nil {
		return nil
	}
	k.seed = seed
	if err := k.connect(); err != nil {
		return &BadInput{Err: err}
	}
	var perms []k8s.Permission
	for perm := range k.perms {
		perms = append(perms, perm)
	}
	slices.SortFunc(perms, func(a, b k8s.Permission) int { return strings.Compare(a.String(), b.String()) })
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := k8s.Preflight(pctx, k.c, k.ns, perms); err != nil {
		var rbac *k8s.RBACError
		if errors.As(err, &rbac) {
			d := make([]string, len(rbac.Denied))
			for i, p := range rbac.Denied {
				d[i] = p.String()
			}
			return &BadInput{Err: fmt.Errorf("the scenario's Kubernetes faults: missing RBAC in namespace %s: %s (apply deploy/rbac.yaml there and bind its Role dbrig-faults, and for cordon or drain its ClusterRole dbrig-node-faults, to your user or service account)",
				rbac.Namespace, strings.Join(d, ", "))}
		}
		if errors.Is(err, k8s.ErrNoNamespace) {
			return &BadInput{Err: fmt.Errorf("kubernetes.namespace: %w", err)}
		}
		return fmt.Errorf("the scenario's Kubernetes faults: %w", err)
	}
	return nil
}

// planKubeEnv is the kubeEnv of a plan's Kubernetes faults (nil: none).
func planKubeEnv(plan []Injection) *kubeEnv {
	for _, in := range plan {
		if kf, ok := in.Fault.(*kubeFault); ok {
			return kf.env
		}
	}
	return nil
}

// inClusterNamespace is the namespace of the pod dbrig runs in.
func inClusterNamespace() string {
	b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
	if err != nil || strings.TrimSpace(string(b)) == "" {
		return "default"
	}
	return strings.TrimSpace(string(b))
}

// checkKubeKeys refuses a Kubernetes fault's settings on a local fault.
func checkKubeKeys(f spec.Fault, bad badFunc) error {
	for _, k := range []struct {
		key   string
		given bool
	}{{"replicas", f.Replicas != 0}, {"pick", f.Pick != ""}, {"signal", f.Signal != ""}, {"process", f.Process != ""},
		{"container", f.Container != ""}, {"grace", f.Grace != 0}, {"heal_wait", f.HealWait != 0}} {
		if k.given {
			return bad(k.key, "a %s fault has no %s (it is a setting of the Kubernetes faults: %s)", f.Kind, k.key, strings.Join(kube.Kinds(), ", "))
		}
	}
	return nil
}

// kubeEntry checks one Kubernetes scenario entry: the section exists, the
// target parses and suits the kind, the settings belong to it (each kind's
// own checks: kube_kinds.go), the timing holds; and notes the permissions
// it needs.
func kubeEntry(e spec.Experiment, f spec.Fault, k *kubeEnv, bad badFunc) (*entry, error) {
	if e.Kubernetes == nil {
		return nil, bad("fault", "a %s fault acts on Kubernetes: add a kubernetes: section (namespace, context, kubeconfig; empty ones are kubectl's)", f.Kind)
	}
	// The local kinds' settings are not a Kubernetes fault's.
	if keys := localSettings(f); len(keys) > 0 {
		return nil, bad(keys[0], "a %s fault has no %s", f.Kind, keys[0])
	}
	t, err := kube.ParseTarget(f.Target)
	if err != nil {
		return nil, bad("target", "%v", err)
	}
	_, hasReplicas := e.Position(f.Path + ".replicas")
	kk := kubeKindOf(f.Kind)
	if err := checkKubeSettings(kk, f, hasReplicas, bad); err != nil {
		return nil, err
	}
	if err := kk.check(f, t, hasReplicas, bad); err != nil {
		return nil, err
	}
	switch {
	case f.Pick != "" && t.Selector == "" && (t.StatefulSet == "" || t.Ordinal >= 0):
		return nil, bad("pick", "pick chooses among several pods: give a target pods/SELECTOR or statefulset/NAME")
	case f.Pick != "" && f.Pick != "all" && f.Pick != "one" && f.Pick != "random":
		return nil, bad("pick", "%q: expected all (every pod), one (the first by name) or random (one, by the run's seed)", f.Pick)
	case f.HealWait < 0:
		return nil, bad("heal_wait", "%v < 0", f.HealWait)
	}
	if t.Leader {
		if leaderFinder(k.driver) == nil {
			return nil, bad("target", "target leader: dbrig asks %s for its leader only; for the %s driver name the pod (pod/NAME, statefulset/NAME:ORDINAL)", strings.Join(leaderDrivers(), ", "), k.driver)
		}
	}
	o := kube.Options{Target: t, Grace: f.Grace, Signal: f.Signal, Process: f.Process, Container: f.Container, Replicas: f.Replicas, Wait: f.HealWait}
	if o.Wait == 0 {
		o.Wait = 25 * time.Second // within the injector's 30 s for a heal
	}
	if f.Pick == "one" {
		o.Pick = "one"
	}
	check := o
	check.Namespace = cmpOr(e.Kubernetes.Namespace, "default")
	if _, err := kube.New(f.Kind, check, nil, noExec{}); err != nil {
		key := "fault"
		for _, k := range []string{"signal", "process", "grace", "replicas", "pick", "selector"} {
			if strings.Contains(err.Error(), k) {
				key = map[string]string{"selector": "target"}[k]
				if key == "" {
					key = k
				}
				break
			}
		}
		return nil, bad(key, "%v", err)
	}
	if err := checkTriggers(&f, bad); err != nil {
		return nil, err
	}
	for _, p := range kubePermissions(f.Kind, t) {
		k.perms[p] = true
	}
	return &entry{f: f, fault: &kubeFault{env: k, kind: f.Kind, opts: o, random: f.Pick == "random", name: f.Name}}, nil
}

// kubePermissions are what a Kubernetes fault does through the API
// (deploy/rbac.yaml's dbrig-faults and dbrig-node-faults grant them).
func kubePermissions(kind string, t kube.Target) []k8s.Permission {
	pods := func(verbs ...string) []k8s.Permission {
		var ps []k8s.Permission
		for _, v := range verbs {
			ps = append(ps, k8s.Permission{Verb: v, Resource: "pods"})
		}
		return ps
	}
	var ps []k8s.Permission
	if t.Selector != "" || t.Leader || (t.StatefulSet != "" && t.Ordinal < 0) {
		ps = append(ps, pods("list")...)
	}
	if t.StatefulSet != "" && t.Ordinal < 0 {
		ps = append(ps, k8s.Permission{Verb: "get", Group: "apps", Resource: "statefulsets"})
	}
	switch kind {
	case "pod-delete":
		ps = append(ps, pods("get", "delete")...)
	case "pod-kill":
		ps = append(ps, append(pods("get"), k8s.Permission{Verb: "create", Resource: "pods", Subresource: "exec"})...)
	case "scale":
		ps = append(ps, k8s.Permission{Verb: "get", Group: "apps", Resource: "statefulsets"}, k8s.Permission{Verb: "patch", Group: "apps", Resource: "statefulsets"})
	case "cordon", "drain":
		ps = append(ps, k8s.Permission{Verb: "get", Resource: "nodes"}, k8s.Permission{Verb: "patch", Resource: "nodes"})
		if t.Node == "" {
			ps = append(ps, pods("get")...)
		}
		if kind == "drain" {
			ps = append(ps, append(pods("list"), k8s.Permission{Verb: "create", Resource: "pods", Subresource: "eviction"})...)
		}
	}
	return ps
}

// noExec stands in for the exec client when a pod-kill is only checked.
type noExec struct{}

func (noExec) Exec(context.Context, string, string, string, []string) (string, string, error) {
	return "", "", errors.New("no exec client")
}

// kubeFault is a Kubernetes fault of a scenario: an inject.Fault that finds
// its pods when it fires (the leader's, a random one of a selector) and then
// acts as the kube fault of its kind. Firings of one entry never overlap
// (every > for), so one kubeFault serves them in turn.
type kubeFault struct {
	env    *kubeEnv
	kind   string
	opts   kube.Options // Namespace set when it fires
	random bool         // pick: random
	name   string

	// Repetitions fire from their own goroutines (one after another, but
	// with no happens-before between them): mu guards the state they share.
	mu    sync.Mutex
	fired int
	inner inject.Fault
}

// Name implements inject.Fault.
func (f *kubeFault) Name() string { return f.kind }

// Inject implements inject.Fault.
func (f *kubeFault) Inject(ctx context.Context, tg inject.Target) error {
	k := f.env
	note := tg.Note
	if note == nil {
		note = func(string) {}
	}
	f.mu.Lock()
	f.fired++
	fired := f.fired
	f.inner = nil
	f.mu.Unlock()
	o := f.opts
	o.Namespace = k.ns
	if o.Leader {
		m, err := k.leaderMember(ctx)
		if err != nil {
			return fmt.Errorf("find the leader: %w", err)
		}
		p, err := kube.PodOf(ctx, k.c, k.ns, "", m)
		if err != nil {
			return err
		}
		o.Pod = p.Name
		note(fmt.Sprintf("leader %s is pod %s", m.Name, p.Name))
	}
	if f.kind != "scale" && o.Node == "" {
		pods, err := o.Target.Pods(ctx, k.c)
		if err != nil {
			return err
		}
		if f.random {
			h := fnv.New64a()
			h.Write([]byte(f.name))
			r := rand.New(rand.NewPCG(uint64(k.seed), h.Sum64()+uint64(fired)))
			p := pods[r.IntN(len(pods))]
			o.Pod, o.Selector, o.StatefulSet, o.Ordinal = p.Name, "", "", -1
			pods = pods[:0]
			pods = append(pods, p)
		}
		var names []string
		for _, p := range pods {
			names = append(names, p.Name)
		}
		note("pods " + strings.Join(names, ", "))
	}
	var ex kube.Exec
	if k.cfg != nil {
		ex = kube.NewExec(k.cfg, k.c)
	} else {
		ex = noExec{}
	}
	inner, err := kube.New(f.kind, o, k.c, ex)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.inner = inner
	f.mu.Unlock()
	return inner.Inject(ctx, tg)
}

// Heal implements inject.Fault: the kube fault's own (pods ready again,
// replicas restored, node schedulable).
func (f *kubeFault) Heal(ctx context.Context, tg inject.Target) error {
	f.mu.Lock()
	inner := f.inner
	f.mu.Unlock()
	if inner == nil {
		return nil
	}
	return inner.Heal(ctx, tg)
}

// leaderMember asks the system which member leads.
func (k *kubeEnv) leaderMember(ctx context.Context) (kube.Member, error) {
	if k.leader != nil {
		return k.leader(ctx)
	}
	find := leaderFinder(k.driver)
	if find == nil {
		return kube.Member{}, fmt.Errorf("no way to ask %s for its leader", k.driver)
	}
	return find(ctx, k.props)
}

// KubeOnly tells whether a plan's faults can fire without a local
// cluster: all of them act on Kubernetes.
func KubeOnly(plan []Injection) bool {
	for _, in := range plan {
		if _, ok := in.Fault.(*kubeFault); !ok {
			return false
		}
	}
	return len(plan) > 0
}

// OnKubernetes tells whether a plan has faults on Kubernetes targets.
func OnKubernetes(plan []Injection) bool { return planKubeEnv(plan) != nil }

// UseKubeClient makes the plan's Kubernetes faults act through c instead
// of connecting to the API server of the file's kubernetes: section (a
// fake clientset in tests; a pod-kill cannot exec through it).
func UseKubeClient(plan []Injection, c kubernetes.Interface) {
	if k := planKubeEnv(plan); k != nil {
		k.mu.Lock()
		k.c = c
		k.mu.Unlock()
	}
}

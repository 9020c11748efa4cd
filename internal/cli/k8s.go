package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/k8s"
	"github.com/dbrig/dbrig/spec"
)

// k8sFlags are dbrig k8s's own flags; every other flag is a `dbrig run`
// flag handed to the coordinator.
type k8sFlags struct {
	workers                 int
	namespace, image        string
	kubeconfig, kubecontext string
	workerRes, coordRes     string
	nodeSelectors, tols     listFlag
	connectTimeout, ttl     time.Duration
	runID, secret, pull     string
	tls                     bool // workers reach the coordinator over TLS (k8s/tls.go)
}

func (f *k8sFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.namespace, "namespace", "", "namespace (default: the kubeconfig context's, else default)")
	fs.StringVar(&f.image, "image", "dbrig:"+experiment.Version, "container image of dbrig (build it from the Dockerfile and push it)")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&f.kubecontext, "context", "", "kubeconfig context (default: the current one)")
	fs.StringVar(&f.workerRes, "worker-resources", "", "each worker's CPU and memory, requests = limits: cpu=1,memory=512Mi")
	fs.StringVar(&f.coordRes, "coordinator-resources", "", "the coordinator's CPU and memory: cpu=1,memory=1Gi")
	fs.Var(&f.nodeSelectors, "node-selector", "schedule the pods on nodes with this label: key=value; repeatable")
	fs.Var(&f.tols, "toleration", "tolerate a taint: key[=value][:Effect]; repeatable")
	fs.DurationVar(&f.ttl, "ttl", 0, "ttlSecondsAfterFinished of the Jobs (0 = none; dbrig k8s run deletes them itself)")
	fs.StringVar(&f.runID, "run-id", "", "label and name suffix of the objects (default: manifests derive it from the inputs, run picks a random one)")
	fs.StringVar(&f.secret, "secret", "", "manifests: the Secret holding keys token and store (default dbrig-RUNID; create it yourself, as the printed comment shows)")
	fs.StringVar(&f.pull, "pull-policy", "", "image pull policy: Always, IfNotPresent or Never (default: Kubernetes')")
	fs.BoolVar(&f.tls, "tls", false, "workers reach the coordinator over TLS: run makes a fresh CA and certificate into the run's Secret")
}

// k8sCmd: dbrig k8s manifests|run [FILE.yaml] [run flags] --workers N …
func k8sCmd(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || (args[0] != "manifests" && args[0] != "run") {
		return usagef("dbrig k8s: expected manifests or run: dbrig k8s manifests|run [FILE.yaml | run flags] --workers N [--image …] [--namespace …]")
	}
	sub := args[0]
	kf, rf, file, err := parseK8sFlags(e, sub, args[1:])
	if err != nil {
		return err
	}
	if sub == "manifests" && rf.store != "" {
		return usagef("dbrig k8s manifests: --store would print the results store's URL (a secret); put it in the Secret named by --secret (key %s) instead", k8s.SecretStoreKey)
	}
	if sub == "run" && !strings.HasPrefix(rf.store, "postgres://") && !strings.HasPrefix(rf.store, "postgresql://") {
		return usagef("dbrig k8s run: --store postgres://… is required: the coordinator pod stores the run there (a SQLite file would die with the pod); it must be reachable from the cluster")
	}
	s, err := k8sSpec(kf, rf, file, args[1:])
	if err != nil {
		return err
	}
	if sub == "manifests" {
		return printManifests(e, s)
	}
	c, ns, err := k8s.Connect(kf.kubeconfig, kf.kubecontext)
	if err != nil {
		return &experiment.InputError{Err: err}
	}
	if s.Namespace == "" {
		s.Namespace = ns
	}
	return k8sRun(ctx, e, c, s)
}

// parseK8sFlags parses k8s flags and run flags together; the one positional
// argument, if any, is an experiment file.
func parseK8sFlags(e *env, sub string, args []string) (*k8sFlags, *runFlags, string, error) {
	kf := &k8sFlags{}
	rf := &runFlags{set: map[string]bool{}}
	fs := newFlagSet("dbrig k8s "+sub, e.stderr)
	rf.define(fs, true)
	kf.define(fs)
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, nil, "", errHelp
	}
	if err != nil {
		return nil, nil, "", &usageError{msg: err.Error()}
	}
	fs.Visit(func(fl *flag.Flag) { rf.set[fl.Name] = true })
	// --workers and --connect-timeout are run's flags (worker.go), read
	// here: the workers are pods, and pods start in any order (image pulls
	// take time), so the wait is longer by default.
	kf.workers, kf.connectTimeout = rf.wf.workers, rf.wf.connectTimeout
	if !rf.set["connect-timeout"] {
		kf.connectTimeout = 5 * time.Minute
	}
	switch {
	case rf.set["tls-cert"] || rf.set["tls-key"] || rf.set["tls-ca"]:
		return nil, nil, "", usagef("dbrig k8s %s: --tls-cert, --tls-key and --tls-ca are set by dbrig k8s: give --tls (a fresh CA and certificate in the run's Secret)", sub)
	case rf.set["listen"] || rf.set["spawn"]:
		return nil, nil, "", usagef("dbrig k8s %s: --listen and --spawn are set by dbrig k8s (the coordinator listens on :%d in its pod; the workers are pods)", sub, k8s.Port)
	case len(pos) > 1:
		return nil, nil, "", usagef("dbrig k8s %s: expected at most one experiment file, got %q", sub, pos)
	case kf.workers < 1:
		return nil, nil, "", usagef("dbrig k8s %s: --workers N is required (N >= 1)", sub)
	case rf.hdrlog != "":
		return nil, nil, "", usagef("dbrig k8s %s: --hdrlog would write inside the coordinator pod; read the stored run instead", sub)
	}
	file := ""
	if len(pos) == 1 {
		file = pos[0]
	}
	return kf, rf, file, nil
}

// k8sOwn are the flags dbrig k8s keeps; the others go to the coordinator.
var k8sOwn = map[string]bool{
	"workers": true, "namespace": true, "image": true, "kubeconfig": true, "context": true,
	"worker-resources": true, "coordinator-resources": true, "node-selector": true, "toleration": true,
	"connect-timeout": true, "listen": true, "spawn": true, "ttl": true, "run-id": true, "secret": true, "pull-policy": true, "store": true, "tls": true,
}

// k8sSpec checks the experiment here (every input, and workers against
// records) and builds the Spec: the coordinator's command and its files.
func k8sSpec(kf *k8sFlags, rf *runFlags, file string, args []string) (*k8s.Spec, error) {
	s := &k8s.Spec{
		Namespace: kf.namespace, Image: kf.image, Workers: kf.workers,
		Files: map[string][]byte{}, ConnectTimeout: kf.connectTimeout, TTL: kf.ttl,
		PullPolicy: corev1.PullPolicy(kf.pull), TLS: kf.tls,
	}
	switch s.PullPolicy {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		return nil, usagef("--pull-policy %q: expected Always, IfNotPresent or Never", kf.pull)
	}
	var err error
	if s.WorkerResources, err = k8s.ParseResources(kf.workerRes); err != nil {
		return nil, usagef("--worker-resources: %v", err)
	}
	if s.CoordinatorResources, err = k8s.ParseResources(kf.coordRes); err != nil {
		return nil, usagef("--coordinator-resources: %v", err)
	}
	for _, ns := range kf.nodeSelectors {
		k, v, err := k8s.ParseNodeSelector(ns)
		if err != nil {
			return nil, usagef("--node-selector: %v", err)
		}
		if s.NodeSelector == nil {
			s.NodeSelector = map[string]string{}
		}
		s.NodeSelector[k] = v
	}
	for _, t := range kf.tols {
		tol, err := k8s.ParseToleration(t)
		if err != nil {
			return nil, usagef("--toleration: %v", err)
		}
		s.Tolerations = append(s.Tolerations, tol)
	}

	// Resolve here, before anything is created: a typo, a missing file or
	// a run that cannot be split into the workers' shares (more workers
	// than records or clients, a driver whose data lives in one process's
	// files) is found on the user's machine, by the coordinator's own check.
	var plans []*experiment.Plan
	if file != "" {
		if len(rf.set) > len(kf.ownSet(rf.set)) {
			return nil, usagef("dbrig k8s: with an experiment file, give the run's settings in the file (run flags such as -p are for runs without one)")
		}
		b, err := experiment.ResolveBench(file, experiment.BenchOptions{Store: rf.store})
		if err != nil {
			return nil, err
		}
		for _, r := range b.Runs {
			if r.Plan.Cluster != nil {
				return nil, &experiment.InputError{Err: fmt.Errorf("%s: cluster: a local cluster cannot run in pods; point the driver at a server the cluster can reach", file)}
			}
			if r.Plan.KubeFaults() {
				// The coordinator's pod has no API access (no service-account token).
				return nil, &experiment.InputError{Err: fmt.Errorf("%s: scenario: faults on Kubernetes targets are fired by dbrig bench on a machine that reaches the API server, not by the pods of dbrig k8s run", file)}
			}
			plans = append(plans, r.Plan)
		}
		body, err := spec.ReadExperimentFile(file)
		if err != nil {
			return nil, &experiment.InputError{Err: err}
		}
		secret := map[string]bool{}
		for _, p := range plans {
			for _, d := range registry()[p.Driver].Props {
				if d.Secret != nil {
					secret[d.Key] = true
				}
			}
		}
		base := filepath.Base(file)
		clean, secrets, sets, err := secretFreeFile(file, body, secret)
		if err != nil {
			return nil, err
		}
		s.Files[base] = clean
		s.SecretProps = secrets
		s.Command = append([]string{"bench", k8s.ExperimentPath(base)}, sets...)
	} else {
		plan, err := experiment.Resolve(rf.options(true, append([]string{"run"}, args...)))
		if err != nil {
			return nil, err
		}
		plans = append(plans, plan)
		secret := map[string]bool{}
		for _, d := range registry()[plan.Driver].Props {
			if d.Secret != nil {
				secret[d.Key] = true
			}
		}
		s.SecretProps = map[string]string{}
		if s.Command, err = coordinatorArgs(args, s.Files, secret, s.SecretProps); err != nil {
			return nil, err
		}
	}
	for _, p := range plans {
		if _, err := p.Shares(kf.workers); err != nil {
			return nil, err
		}
	}
	s.Secret = kf.secret
	s.Store = rf.store
	if kf.runID != "" {
		s.RunID = kf.runID
	}
	return s, nil
}

// ownSet returns the visited flags that are dbrig k8s's own.
func (kf *k8sFlags) ownSet(set map[string]bool) map[string]bool {
	own := map[string]bool{}
	for n := range set {
		if k8sOwn[n] {
			own[n] = true
		}
	}
	return own
}

// coordinatorArgs rebuilds the `dbrig run` flags for the coordinator from
// what was given, without dbrig k8s's own; a local -P file goes into the
// ConfigMap and is named by its path in the pod.
//
// A secret driver property (-p redis.password=…) goes into secrets, and the
// coordinator's command names it as $(ENV) from the run's Secret: a pod
// spec is readable by anyone who may read the Job.
func coordinatorArgs(args []string, files map[string][]byte, secret map[string]bool, secrets map[string]string) ([]string, error) {
	fs := newFlagSet("", nil)
	var probe runFlags
	probe.set = map[string]bool{}
	probe.define(fs, true)
	(&k8sFlags{}).define(fs)
	if _, err := parseInterspersed(fs, args); err != nil {
		return nil, usagef("%v", err)
	}
	out := []string{"run"}
	var errs []error
	fs.Visit(func(fl *flag.Flag) {
		if k8sOwn[fl.Name] {
			return
		}
		if l, ok := fl.Value.(*listFlag); ok {
			for _, v := range *l {
				if fl.Name == "P" {
					if body, err := os.ReadFile(v); err == nil {
						if err := secretInPropFile(v, body, secret); err != nil {
							errs = append(errs, err)
						}
						base := filepath.Base(v)
						if prev, dup := files[base]; dup && string(prev) != string(spec.WithoutComments(body)) {
							errs = append(errs, fmt.Errorf("-P %s: another property file is also named %s; rename one", v, base))
						}
						files[base] = spec.WithoutComments(body)
						v = k8s.ExperimentPath(base)
					}
				}
				if fl.Name == "p" {
					if key, val, ok := strings.Cut(v, "="); ok && secret[strings.TrimSpace(key)] {
						key = strings.TrimSpace(key)
						secrets[key] = val
						v = key + "=$(" + k8s.SecretPropEnv(key) + ")"
					}
				}
				out = append(out, "-"+fl.Name, v)
			}
			return
		}
		out = append(out, "--"+fl.Name+"="+fl.Value.String())
	})
	if err := errors.Join(errs...); err != nil {
		return nil, &experiment.InputError{Err: err}
	}
	// Visit goes by flag name; within -P (later files win) and -p the
	// user's order is kept by listFlag.
	return out, nil
}

func printManifests(e *env, s *k8s.Spec) error {
	if s.Namespace == "" {
		s.Namespace = "default"
	}
	if s.RunID == "" {
		parts := []string{s.Namespace, s.Image}
		parts = append(parts, s.Command...)
		names := make([]string, 0, len(s.Files))
		for n := range s.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			parts = append(parts, n, string(s.Files[n]))
		}
		s.RunID = k8s.StableRunID(parts...)
	}
	if s.Secret == "" {
		s.Secret = k8s.Name(s.RunID)
	}
	objs, err := k8s.Build(*s)
	if err != nil {
		return &experiment.InputError{Err: err}
	}
	fmt.Fprintf(e.stdout, "# dbrig %s: %d workers in namespace %s (run id %s).\n", experiment.Version, s.Workers, s.Namespace, s.RunID)
	fmt.Fprintf(e.stdout, "# Create the Secret first (a random token, and a PostgreSQL results store the pods can reach):\n")
	props := ""
	for _, k := range sortedMapKeys(s.SecretProps) {
		props += fmt.Sprintf(" --from-literal=%s='…'", k8s.SecretPropKey(k))
	}
	fmt.Fprintf(e.stdout, "#   kubectl -n %s create secret generic %s --from-literal=%s=\"$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n')\" --from-literal=%s='postgres://USER:PASSWORD@HOST/DB'%s\n",
		s.Namespace, s.Secret, k8s.SecretTokenKey, k8s.SecretStoreKey, props)
	if s.TLS {
		fmt.Fprintf(e.stdout, "# --tls: the Secret also needs %s (a CA certificate), %s and %s (the coordinator's certificate for %s, signed by that CA, and its key), PEM:\n",
			k8s.SecretTLSCAKey, k8s.SecretTLSCertKey, k8s.SecretTLSKeyKey, k8s.CoordinatorHost(s))
		fmt.Fprintf(e.stdout, "#   add --from-file=%s=ca.pem --from-file=%s=cert.pem --from-file=%s=key.pem to the command above\n",
			k8s.SecretTLSCAKey, k8s.SecretTLSCertKey, k8s.SecretTLSKeyKey)
	}
	fmt.Fprintf(e.stdout, "# Then: kubectl apply -f THIS.yaml; kubectl -n %s logs -f job/%s-coordinator\n", s.Namespace, k8s.Name(s.RunID))
	fmt.Fprintf(e.stdout, "# Clean up: kubectl -n %s delete job,service,configmap,secret -l %s\n", s.Namespace, k8s.Selector(s.RunID))
	return k8s.WriteYAML(e.stdout, objs.List())
}

func sortedMapKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func k8sRun(ctx context.Context, e *env, c kubernetes.Interface, s *k8s.Spec) error {
	if s.Secret != "" {
		return usagef("dbrig k8s run: --secret is for manifests; run makes its own Secret from --store and a random token")
	}
	var err error
	if s.RunID == "" {
		if s.RunID, err = k8s.NewRunID(); err != nil {
			return err
		}
	}
	if s.Token, err = k8s.NewToken(); err != nil {
		return err
	}
	objs, err := k8s.Build(*s)
	if err != nil {
		return &experiment.InputError{Err: err}
	}
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = k8s.Preflight(pctx, c, s.Namespace, k8s.RunPermissions())
	cancel()
	if err != nil {
		var re *k8s.RBACError
		if errors.Is(err, k8s.ErrNoNamespace) || errors.Is(err, k8s.ErrUnreachable) || errors.As(err, &re) {
			return &experiment.InputError{Err: err}
		}
		return err
	}
	err = k8s.Run(ctx, c, s, objs, e.stderr, e.stdout)
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted; the run's objects were deleted (what the coordinator stored before stays in the store): %w", err)
	}
	return err
}

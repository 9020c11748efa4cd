// Package k8s runs a distributed dbrig benchmark on a Kubernetes cluster: it
// builds the objects (an Indexed Job of worker pods, a coordinator Job with its
// Service, the experiment in a ConfigMap, the shared token and the results
// store URL in a Secret), prints them as YAML, and creates, watches and deletes
// them through client-go.
//
// The coordinator runs in a pod, not on the user's machine: worker pods cannot
// reach a laptop through `kubectl port-forward` (it forwards from the laptop
// into the cluster, not back), so the coordinator listens on :7070 in its pod
// and a ClusterIP Service gives the workers a stable address. Results go to a
// PostgreSQL results store whose URL is in the Secret: a SQLite file in the
// coordinator pod would vanish with it.
package k8s

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Labels every object of a run carries; LabelRun selects them for cleanup.
const (
	LabelName      = "app.kubernetes.io/name"
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelRun       = "dbrig.io/run"
	LabelRole      = "dbrig.io/role"

	RoleCoordinator = "coordinator"
	RoleWorker      = "worker"

	// Port is where the coordinator listens in its pod.
	Port = 7070
	// ExperimentDir is where the ConfigMap's files are mounted.
	ExperimentDir = "/etc/dbrig/experiment"
	// SecretTokenKey and SecretStoreKey are the keys of the run's Secret.
	SecretTokenKey = "token"
	SecretStoreKey = "store"

	workDir = "/work"
	uid     = 65532 // the non-root user of the image (Dockerfile)
)

// ErrBadSpec is wrapped by Spec.Check for a setting that cannot work.
var ErrBadSpec = errors.New("bad Kubernetes setting")

// Spec is what a distributed run on Kubernetes needs. Run IDs, names and
// label values must be valid Kubernetes names; Check says which is not.
type Spec struct {
	Namespace string
	RunID     string // lower-case letters and digits; names are dbrig-RUNID-…
	Image     string
	Workers   int

	// Command is what the coordinator runs after `dbrig`: either
	// ["run", flags…] or ["bench", ExperimentDir+"/FILE.yaml", …]. The
	// coordinator flags (--workers, --listen, --spawn=false, --store) are
	// appended by Build.
	Command []string
	// Files are put in the ConfigMap and mounted in ExperimentDir (the
	// experiment file, local -P property files), by base name.
	Files map[string][]byte

	// Secret names the Secret holding SecretTokenKey and SecretStoreKey.
	// Empty: dbrig-RUNID, which Build returns with Token and Store.
	Secret string
	Token  string // used only when Build makes the Secret
	Store  string // the results store URL (postgres://…), same
	// SecretProps are secret driver properties (a password): the
	// coordinator's command names them as $(ENV), and the env comes from
	// the Secret's key SecretPropKey(key). Values are used only when Build
	// makes the Secret.
	SecretProps map[string]string

	WorkerResources      corev1.ResourceRequirements
	CoordinatorResources corev1.ResourceRequirements
	NodeSelector         map[string]string
	Tolerations          []corev1.Toleration
	ConnectTimeout       time.Duration // how long workers and the coordinator wait for each other
	PullPolicy           corev1.PullPolicy
	// TTL: ttlSecondsAfterFinished of both Jobs (0: none, dbrig deletes them).
	TTL time.Duration
	// TLS: workers reach the coordinator over TLS with a fresh CA in the
	// Secret (tls.go).
	TLS bool
}

var runIDRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,18}[a-z0-9])?$`)

// Check rejects a Spec that would not produce valid objects, naming what to fix.
func (s *Spec) Check() error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrBadSpec}, a...)...))
	}
	if msgs := validation.IsDNS1123Label(s.Namespace); len(msgs) > 0 {
		bad("namespace %q: %s", s.Namespace, strings.Join(msgs, "; "))
	}
	if !runIDRe.MatchString(s.RunID) {
		bad("run id %q: expected 1-20 lower-case letters, digits or '-', starting and ending with a letter or digit", s.RunID)
	}
	if strings.TrimSpace(s.Image) == "" {
		bad("image: empty (build one with the Dockerfile and push it: --image REGISTRY/dbrig:TAG)")
	}
	if s.Workers < 1 {
		bad("workers %d: expected at least 1", s.Workers)
	}
	if len(s.Command) == 0 || (s.Command[0] != "run" && s.Command[0] != "bench") {
		bad("coordinator command %q: expected run … or bench FILE", s.Command)
	}
	for k := range s.SecretProps {
		if msgs := validation.IsConfigMapKey(SecretPropKey(k)); len(msgs) > 0 {
			bad("secret property %q: %s", k, strings.Join(msgs, "; "))
		}
	}
	for name := range s.Files {
		if msgs := validation.IsConfigMapKey(name); len(msgs) > 0 {
			bad("file %q: %s (rename it)", name, strings.Join(msgs, "; "))
		}
	}
	if s.Secret != "" {
		if msgs := validation.IsDNS1123Subdomain(s.Secret); len(msgs) > 0 {
			bad("secret %q: %s", s.Secret, strings.Join(msgs, "; "))
		}
	} else {
		if s.Token == "" {
			bad("token: empty (the workers' shared token)")
		}
		if s.Store == "" {
			bad("results store: empty (a postgres://… URL that pods can reach; a SQLite file would die with the coordinator pod)")
		}
	}
	if s.ConnectTimeout < 0 || s.TTL < 0 {
		bad("negative duration (connect timeout %v, ttl %v)", s.ConnectTimeout, s.TTL)
	}
	return errors.Join(errs...)
}

// Objects are one run's objects, in the order they are created.
type Objects struct {
	Secret      *corev1.Secret // nil when Spec.Secret names an existing one
	ConfigMap   *corev1.ConfigMap
	Service     *corev1.Service
	Coordinator *batchv1.Job
	Workers     *batchv1.Job
}

// List returns the objects in creation order (Secret and ConfigMap first,
// since the pods need them; the coordinator before the workers).
func (o *Objects) List() []runtime.Object {
	var l []runtime.Object
	if o.Secret != nil {
		l = append(l, o.Secret)
	}
	return append(l, o.ConfigMap, o.Service, o.Coordinator, o.Workers)
}

// Name is the prefix of a run's object names.
func Name(runID string) string { return "dbrig-" + runID }

// Selector selects every object of a run.
func Selector(runID string) string { return LabelRun + "=" + runID }

func labels(runID, role string) map[string]string {
	l := map[string]string{LabelName: "dbrig", LabelManagedBy: "dbrig", LabelRun: runID}
	if role != "" {
		l[LabelRole] = role
	}
	return l
}

// CoordinatorURL is where workers reach the coordinator: its Service.
func CoordinatorURL(s *Spec) string {
	return fmt.Sprintf("http://%s-coordinator.%s.svc:%d", Name(s.RunID), s.Namespace, Port)
}

// Build returns the objects of a run; the Spec is checked first.
func Build(s Spec) (*Objects, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	name := Name(s.RunID)
	secret := s.Secret
	o := &Objects{}
	if secret == "" {
		secret = name
		o.Secret = &corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: meta(name, s, ""),
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{SecretTokenKey: []byte(s.Token), SecretStoreKey: []byte(s.Store)},
		}
	}
	o.ConfigMap = &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta(name+"-experiment", s, ""),
		Data:       map[string]string{},
	}
	for n, b := range s.Files {
		o.ConfigMap.Data[n] = string(b)
	}
	o.Service = &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: meta(name+"-coordinator", s, RoleCoordinator),
		Spec: corev1.ServiceSpec{
			Selector: labels(s.RunID, RoleCoordinator),
			Ports:    []corev1.ServicePort{{Name: "dbrig", Port: Port, TargetPort: intstr.FromInt32(Port), Protocol: corev1.ProtocolTCP}},
			// Workers connect while the coordinator is not yet "ready" only
			// if it accepts them; readiness is its /healthz.
			PublishNotReadyAddresses: false,
		},
	}

	timeout := s.ConnectTimeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	coordArgs := append(append([]string{}, s.Command...),
		"--workers", strconv.Itoa(s.Workers),
		"--listen", fmt.Sprintf(":%d", Port),
		"--spawn=false",
		"--connect-timeout", timeout.String(),
		// Kubernetes expands $(VAR) from the container's env: the URL stays
		// in the Secret, not in the pod spec.
		"--store", "$(DBRIG_STORE)",
	)
	coord := container(s, "coordinator", coordArgs, s.CoordinatorResources)
	coord.Env = append(coord.Env, secretEnv("DBRIG_STORE", secret, SecretStoreKey))
	for _, k := range sortedKeys(s.SecretProps) {
		coord.Env = append(coord.Env, secretEnv(SecretPropEnv(k), secret, SecretPropKey(k)))
		if o.Secret != nil {
			o.Secret.Data[SecretPropKey(k)] = []byte(s.SecretProps[k])
		}
	}
	coord.Ports = []corev1.ContainerPort{{Name: "dbrig", ContainerPort: Port, Protocol: corev1.ProtocolTCP}}
	coord.ReadinessProbe = &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(Port)}},
		PeriodSeconds: 2,
	}
	o.Coordinator = job(s, name+"-coordinator", RoleCoordinator, 1, false, coord)

	worker := container(s, "worker", []string{"worker", "--coordinator", CoordinatorURL(&s), "--connect-timeout", timeout.String()}, s.WorkerResources)
	o.Workers = job(s, name+"-workers", RoleWorker, s.Workers, true, worker)
	if s.TLS {
		if err := addTLS(o, s, secret); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func meta(name string, s Spec, role string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: labels(s.RunID, role)}
}

func secretEnv(env, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: env, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key,
	}}}
}

func container(s Spec, name string, args []string, res corev1.ResourceRequirements) corev1.Container {
	secret := s.Secret
	if secret == "" {
		secret = Name(s.RunID)
	}
	f := false
	t := true
	return corev1.Container{
		Name:            name,
		Image:           s.Image,
		ImagePullPolicy: s.PullPolicy,
		Args:            args,
		Env: []corev1.EnvVar{
			// The token only ever comes from the environment (never a flag: ps shows flags).
			secretEnv("DBRIG_TOKEN", secret, SecretTokenKey),
			{Name: "HOME", Value: workDir},
			{Name: "XDG_DATA_HOME", Value: workDir},
			{Name: "XDG_STATE_HOME", Value: workDir},
		},
		Resources: res,
		VolumeMounts: []corev1.VolumeMount{
			{Name: "experiment", MountPath: ExperimentDir, ReadOnly: true},
			{Name: "work", MountPath: workDir},
		},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: &f,
			ReadOnlyRootFilesystem:   &t,
			RunAsNonRoot:             &t,
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
}

func job(s Spec, name, role string, n int, indexed bool, c corev1.Container) *batchv1.Job {
	count := int32(n)
	zero := int32(0)
	no := false
	yes := true
	user := int64(uid)
	j := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(name, s, role),
		Spec: batchv1.JobSpec{
			Completions: &count,
			Parallelism: &count,
			// A worker that fails is not restarted: the coordinator records
			// its loss and goes on with the others; a second worker with the
			// same index would join a run that has moved on.
			BackoffLimit: &zero,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels(s.RunID, role)},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: &no, // the pods never call the API
					EnableServiceLinks:           &no,
					NodeSelector:                 s.NodeSelector,
					Tolerations:                  s.Tolerations,
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   &yes,
						RunAsUser:      &user,
						RunAsGroup:     &user,
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{c},
					Volumes: []corev1.Volume{
						{Name: "experiment", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: Name(s.RunID) + "-experiment"},
						}}},
						{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
					},
				},
			},
		},
	}
	if indexed {
		mode := batchv1.IndexedCompletion
		j.Spec.CompletionMode = &mode
	}
	if s.TTL > 0 {
		ttl := int32(s.TTL / time.Second)
		j.Spec.TTLSecondsAfterFinished = &ttl
	}
	return j
}

// SecretPropKey is the Secret's key of a secret property.
func SecretPropKey(prop string) string { return "prop." + prop }

// SecretPropEnv is the coordinator's environment variable of a secret
// property; its command line says $(SecretPropEnv(prop)).
func SecretPropEnv(prop string) string {
	b := []byte("DBRIG_PROP_" + strings.ToUpper(prop))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// ExperimentPath is where a file of Spec.Files is seen in the pods.
func ExperimentPath(name string) string { return path.Join(ExperimentDir, name) }

// ParseResources reads "cpu=500m,memory=1Gi" into requests equal to limits
// (a load generator that is throttled measures its own stalls).
func ParseResources(v string) (corev1.ResourceRequirements, error) {
	var r corev1.ResourceRequirements
	if strings.TrimSpace(v) == "" {
		return r, nil
	}
	list := corev1.ResourceList{}
	for _, part := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || (k != "cpu" && k != "memory") {
			return r, fmt.Errorf("%w: resources %q: expected cpu=QUANTITY,memory=QUANTITY (e.g. cpu=500m,memory=1Gi)", ErrBadSpec, v)
		}
		q, err := resource.ParseQuantity(val)
		if err != nil {
			return r, fmt.Errorf("%w: resources %q: %s=%q: %w", ErrBadSpec, v, k, val, err)
		}
		if q.Sign() <= 0 {
			return r, fmt.Errorf("%w: resources %q: %s must be positive", ErrBadSpec, v, k)
		}
		list[corev1.ResourceName(k)] = q
	}
	return corev1.ResourceRequirements{Requests: list, Limits: list.DeepCopy()}, nil
}

// ParseNodeSelector reads "key=value".
func ParseNodeSelector(v string) (string, string, error) {
	k, val, ok := strings.Cut(v, "=")
	if !ok {
		return "", "", fmt.Errorf("%w: node selector %q: expected key=value", ErrBadSpec, v)
	}
	if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
		return "", "", fmt.Errorf("%w: node selector %q: key: %s", ErrBadSpec, v, strings.Join(msgs, "; "))
	}
	if msgs := validation.IsValidLabelValue(val); len(msgs) > 0 {
		return "", "", fmt.Errorf("%w: node selector %q: value: %s", ErrBadSpec, v, strings.Join(msgs, "; "))
	}
	return k, val, nil
}

// ParseToleration reads kubectl's taint syntax: key[=value]:Effect, or
// key:Effect, or key (any effect); "Exists" when no value is given.
func ParseToleration(v string) (corev1.Toleration, error) {
	var t corev1.Toleration
	rest := v
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		rest = v[:i]
		switch e := corev1.TaintEffect(v[i+1:]); e {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			t.Effect = e
		default:
			return t, fmt.Errorf("%w: toleration %q: effect %q (expected NoSchedule, PreferNoSchedule or NoExecute)", ErrBadSpec, v, e)
		}
	}
	k, val, hasVal := strings.Cut(rest, "=")
	if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
		return t, fmt.Errorf("%w: toleration %q: key: %s", ErrBadSpec, v, strings.Join(msgs, "; "))
	}
	t.Key = k
	if hasVal {
		if msgs := validation.IsValidLabelValue(val); len(msgs) > 0 {
			return t, fmt.Errorf("%w: toleration %q: value: %s", ErrBadSpec, v, strings.Join(msgs, "; "))
		}
		t.Operator, t.Value = corev1.TolerationOpEqual, val
	} else {
		t.Operator = corev1.TolerationOpExists
	}
	return t, nil
}

// sortedKeys returns m's keys in order (deterministic output).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

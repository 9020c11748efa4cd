package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/scenario"
)

// End-to-end runs of scenarios with Kubernetes faults (package scenario
// checks and fires them) against a fake API server.

// kubeFile writes an experiment file on the null driver with the given
// text after its load section and reads it.
func kubeFile(t *testing.T, driver, rest string) string {
	t.Helper()
	text := `name: k
seed: 7
system: {driver: ` + driver + `}
dataset: {records: 50}
workload: {files: [workloada]}
load: {model: open, rate: 100, clients: 2, duration: 5s}
` + rest
	path := filepath.Join(t.TempDir(), "k.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestKubeScenarioBadInput(t *testing.T) {
	const ns = "kubernetes: {namespace: db}\n"
	for _, tc := range []struct {
		name, driver, rest, where, msg string
	}{
		{"no kubernetes section", "null", `scenario:
  - {fault: pod-delete, target: pod/db-0, at: 1s}`, ":8:13:", "add a kubernetes: section"},
		{"local fault without a cluster", "null", ns + `scenario:
  - {fault: kill, target: leader, at: 1s}`, ":9:", "local cluster"},
		{"bad target", "null", ns + `scenario:
  - {fault: pod-delete, target: "deployment/x", at: 1s}`, ":9:33:", "unknown kind"},
		{"bad ordinal", "null", ns + `scenario:
  - {fault: pod-delete, target: "statefulset/db:x", at: 1s}`, ":9:33:", "ordinal"},
		{"scale without replicas", "null", ns + `scenario:
  - {fault: scale, target: statefulset/db, at: 1s}`, ":9:13:", "scale needs replicas"},
		{"scale of a pod", "null", ns + `scenario:
  - {fault: scale, target: pod/db-0, replicas: 2, at: 1s}`, ":9:28:", "statefulset/NAME"},
		{"replicas on a delete", "null", ns + `scenario:
  - {fault: pod-delete, target: pod/db-0, replicas: 2, at: 1s}`, ":9:53:", "has no replicas"},
		{"signal on a delete", "null", ns + `scenario:
  - {fault: pod-delete, target: pod/db-0, signal: KILL, at: 1s}`, ":9:51:", "has no signal"},
		{"bad signal", "null", ns + `scenario:
  - {fault: pod-kill, target: pod/db-0, signal: NOPE, at: 1s}`, ":9:49:", "signal"},
		{"link on a kube fault", "null", ns + `scenario:
  - {fault: pod-delete, target: pod/db-0, link: peer, at: 1s}`, ":9:49:", "has no link"},
		{"unknown key", "null", ns + `scenario:
  - {fault: scale, target: statefulset/db, replica: 2, at: 1s}`, ":9:", "replica"},
		{"unknown section key", "null", `kubernetes: {namespace: db, contxt: x}
scenario:
  - {fault: pod-delete, target: pod/db-0, at: 1s}`, ":7:29:", "contxt"},
		{"pick on one pod", "null", ns + `scenario:
  - {fault: pod-delete, target: pod/db-0, pick: one, at: 1s}`, ":9:49:", "pick chooses"},
		{"bad pick", "null", ns + `scenario:
  - {fault: pod-delete, target: pods/app=db, pick: some, at: 1s}`, ":9:52:", "expected all"},
		{"node target of a delete", "null", ns + `scenario:
  - {fault: pod-delete, target: node/n1, at: 1s}`, ":9:33:", "cordon and drain"},
		{"leader the driver cannot name", "null", ns + `scenario:
  - {fault: pod-delete, target: leader, at: 1s}`, ":9:33:", "asks etcd"},
		{"count without every", "null", ns + `scenario:
  - {fault: pod-delete, target: pod/db-0, at: 1s, count: 2}`, ":9:", "needs every"},
		{"past the end", "null", ns + `scenario:
  - {fault: scale, target: statefulset/db, replicas: 3, at: 4s, for: 3s}`, ":9:", "past the measure phase"},
		{"kube key on a local fault", "etcd", `system: {driver: etcd, cluster: {recipe: etcd, nodes: 3}}
scenario:
  - {fault: kill, target: leader, replicas: 3, at: 1s}`, "", "has no replicas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := kubeFile(t, tc.driver, tc.rest)
			if tc.driver == "etcd" { // a second system: section would be a YAML error; rewrite the first
				b, _ := os.ReadFile(path)
				s := strings.Replace(string(b), "system: {driver: etcd}\n", "", 1)
				os.WriteFile(path, []byte(s), 0o644)
			}
			_, err := ResolveBench(path, BenchOptions{Store: filepath.Join(t.TempDir(), "r.db")})
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "k.yaml"+tc.where) {
				t.Errorf("error %q, want %q at k.yaml%s", err, tc.msg, tc.where)
			}
			if !IsInput(err) {
				t.Errorf("not an input error: %v", err)
			}
		})
	}
}

// kubeObjects are a namespace db with pods db-0, db-1 (app=db, their
// IPs in status) and a StatefulSet db of 2 ready replicas.
func kubeObjects() []runtime.Object {
	l := map[string]string{"app": "db"}
	two := int32(2)
	var objs []runtime.Object
	objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "db"}})
	for i, n := range []string{"db-0", "db-1"} {
		objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: "db", Labels: l},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "example/db"}}},
			Status: corev1.PodStatus{PodIP: "10.1.0." + string(rune('1'+i))}})
	}
	return append(objs, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "db"}, Spec: appsv1.StatefulSetSpec{
		Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: l}}, Status: appsv1.StatefulSetStatus{Replicas: 2, ReadyReplicas: 2}})
}

// fakeKube is a fake clientset with kubeObjects that allows every access
// review (or denies those of deny) and records the replicas every scale
// patch of the StatefulSet set.
func fakeKube(deny string) (*fake.Clientset, func() []string) {
	c := fake.NewClientset(kubeObjects()...)
	c.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authv1.SelfSubjectAccessReview)
		ra := r.Spec.ResourceAttributes
		r.Status.Allowed = !(deny != "" && ra.Verb+" "+ra.Resource == deny)
		return true, r, nil
	})
	var mu sync.Mutex
	var patches []string
	c.PrependReactor("patch", "statefulsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		patches = append(patches, string(a.(k8stesting.PatchAction).GetPatch()))
		mu.Unlock()
		return false, nil, nil
	})
	return c, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string{}, patches...) }
}

const kubeScenario = `kubernetes: {namespace: db}
scenario:
  - {name: del, fault: pod-delete, target: pod/db-0, at: 1s}
  - {name: grow, fault: scale, target: statefulset/db, replicas: 5, at: 1s, for: 1s, every: 2s, count: 2}
`

// checkKubeRun checks a run of kubeScenario: its events are stored, each
// fault was injected (and the scale healed), and analysis computed the
// impact of each as of a local fault.
func checkKubeRun(t *testing.T, store string, out *Outcome) {
	t.Helper()
	s, err := results.Open(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := s.Run(context.Background(), out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ev := range d.Events {
		if strings.HasPrefix(ev.Kind, "fault") {
			got[ev.Kind+" "+ev.Name] = ev.Outcome
			t.Logf("event %s %s: %s → %s", ev.Kind, ev.Name, ev.Detail, ev.Outcome)
		}
	}
	for k, want := range map[string]string{"fault del": "injected", "fault_start grow#1": "injected", "fault_end grow#1": "healed",
		"fault_start grow#2": "injected", "fault_end grow#2": "healed"} {
		if got[k] != want {
			t.Errorf("stored event %s: outcome %q, want %q (all: %v)", k, got[k], want, got)
		}
	}
	if len(out.Impacts) != 3 {
		t.Errorf("impacts %+v, want one per firing (3)", out.Impacts)
	}
	plan, err := s.FaultPlan(context.Background(), out.RunID)
	if err != nil || len(plan) != 3 {
		t.Errorf("stored fault plan %+v, %v", plan, err)
	}
}

// TestKubeScenarioFake runs a whole experiment (null driver) whose
// scenario deletes a pod at 1 s and scales a StatefulSet to 5 every 2 s
// (twice, 1 s each) through a fake clientset: the pod is gone, the
// replicas went 5, 2, 5, 2, the events are stored with the run.
func TestKubeScenarioFake(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	b, err := ResolveBench(kubeFile(t, "null", kubeScenario), BenchOptions{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	p := b.Runs[0].Plan
	c, patches := fakeKube("")
	scenario.UseKubeClient(p.Faults, c)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := Execute(ctx, p, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	checkKubeRun(t, store, out)
	if _, err := c.CoreV1().Pods("db").Get(ctx, "db-0", metav1.GetOptions{}); err == nil {
		t.Error("pod db-0 is still there after pod-delete")
	}
	if _, err := c.CoreV1().Pods("db").Get(ctx, "db-1", metav1.GetOptions{}); err != nil {
		t.Errorf("pod db-1 was not a target: %v", err)
	}
	want := []string{`{"spec":{"replicas":5}}`, `{"spec":{"replicas":2}}`, `{"spec":{"replicas":5}}`, `{"spec":{"replicas":2}}`}
	if got := patches(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("scale patches %v, want %v", got, want)
	}
}

// TestKubeScenarioPreflight: missing RBAC and a missing namespace are found
// before anything is stored, and name what to fix.
func TestKubeScenarioPreflight(t *testing.T) {
	for _, tc := range []struct {
		deny, ns, msg string
	}{
		{deny: "patch statefulsets", ns: "db", msg: "missing RBAC in namespace db: patch statefulsets.apps"},
		{ns: "nope", msg: `namespace not found: "nope"`},
	} {
		store := filepath.Join(t.TempDir(), "r.db")
		b, err := ResolveBench(kubeFile(t, "null", strings.Replace(kubeScenario, "namespace: db", "namespace: "+tc.ns, 1)), BenchOptions{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := fakeKube(tc.deny)
		scenario.UseKubeClient(b.Runs[0].Plan.Faults, c)
		out, err := Execute(context.Background(), b.Runs[0].Plan, Hooks{})
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !IsInput(err) || out != nil {
			t.Errorf("deny %q ns %s: %v (outcome %v), want an input error with %q and nothing stored", tc.deny, tc.ns, err, out, tc.msg)
		}
		if _, err := os.Stat(store); err == nil {
			t.Errorf("%s: a store was created before the preflight failed", tc.msg)
		}
	}
}

package scenario

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/inject/kube"
	"github.com/dbrig/dbrig/spec"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
)

// kubeExperiment reads an experiment file on the etcd driver (no local
// cluster) with the given text after its load section.
func kubeExperiment(t *testing.T, rest string) spec.Experiment {
	t.Helper()
	text := `name: k
seed: 7
system: {driver: etcd}
dataset: {records: 50}
workload: {files: [workloada]}
load: {model: open, rate: 100, clients: 2, duration: 5s}
` + rest
	path := filepath.Join(t.TempDir(), "k.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	exps, err := spec.ReadExperiment(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return exps[0]
}

// dbPods are pods db-0 and db-1 (app=db) of namespace db, their IPs in
// status.
func dbPods() []runtime.Object {
	var objs []runtime.Object
	for i, n := range []string{"db-0", "db-1"} {
		objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: "db", Labels: map[string]string{"app": "db"}},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "example/db"}}},
			Status: corev1.PodStatus{PodIP: "10.1.0." + string(rune('1'+i))}})
	}
	return objs
}

// TestKubeLeaderAndRandom: target leader deletes the pod of the member the
// system names (a stand-in for asking etcd, mapped to the pod by IP), and
// pick: random takes one pod of a selector by the run's seed.
func TestKubeLeaderAndRandom(t *testing.T) {
	e := kubeExperiment(t, `kubernetes: {namespace: db}
scenario:
  - {name: lead, fault: pod-delete, target: leader, at: 500ms}
  - {name: rnd, fault: pod-delete, target: pods/app=db, pick: random, at: 1s}
`)
	plan, err := Plan(e, nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientset(dbPods()...)
	env := planKubeEnv(plan)
	env.c, env.ns, env.seed = c, "db", 7
	env.leader = func(context.Context) (kube.Member, error) {
		return kube.Member{Name: "etcd-member-b", Addrs: []string{"http://10.1.0.2:2380"}}, nil
	}
	var notes []string
	if err := plan[0].Fault.Inject(context.Background(), noting(&notes)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Pods("db").Get(context.Background(), "db-1", metav1.GetOptions{}); err == nil {
		t.Error("the leader's pod db-1 (IP 10.1.0.2) is still there")
	}
	if _, err := c.CoreV1().Pods("db").Get(context.Background(), "db-0", metav1.GetOptions{}); err != nil {
		t.Errorf("db-0 is not the leader's pod but is gone: %v", err)
	}
	if len(notes) == 0 || !strings.Contains(notes[0], "leader etcd-member-b is pod db-1") {
		t.Errorf("notes %q", notes)
	}
	// pick: random, twice on fresh pods with the same seed: one pod, the same.
	var picked []string
	for range 2 {
		c := fake.NewClientset(dbPods()...)
		env.c = c
		f := plan[1].Fault.(*kubeFault) // a fresh one: its firing count from 0
		rnd := &kubeFault{env: f.env, kind: f.kind, opts: f.opts, random: f.random, name: f.name}
		notes = nil
		if err := rnd.Inject(context.Background(), noting(&notes)); err != nil {
			t.Fatal(err)
		}
		l, _ := c.CoreV1().Pods("db").List(context.Background(), metav1.ListOptions{})
		if len(l.Items) != 1 || len(notes) != 1 {
			t.Fatalf("pick: random left %d of 2 pods, notes %q", len(l.Items), notes)
		}
		picked = append(picked, notes[0])
	}
	if picked[0] != picked[1] {
		t.Errorf("pick: random with one seed chose %q then %q", picked[0], picked[1])
	}
}

func noting(notes *[]string) inject.Target {
	return inject.Target{Note: func(s string) { *notes = append(*notes, s) }}
}

// TestKubeKindsKnown: every kind inject/kube can build has a kind here,
// and each setting is some kind's.
func TestKubeKindsKnown(t *testing.T) {
	for _, name := range kube.Kinds() {
		if kubeKindOf(name) == nil {
			t.Errorf("inject/kube's %s has no kind in scenario", name)
		}
	}
	for _, key := range []string{"replicas", "signal", "process", "container", "grace"} {
		if len(kindsTaking(key)) == 0 {
			t.Errorf("no Kubernetes kind takes %s", key)
		}
	}
	if kubeKindOf("kill") != nil {
		t.Error("kill is not a Kubernetes fault")
	}
}

package k8s_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/k8s"
	"github.com/dbrig/dbrig/results"
)

// TestRealAPIServerScenario runs a whole experiment (null driver) whose
// scenario deletes a pod at 1 s and scales a StatefulSet to 5 every 2 s
// (twice, for 1 s) against a real kube-apiserver, reached through a
// kubeconfig file as a user would: the pod is gone, the StatefulSet's
// replicas went 5, 2, 5, 2 (seen by a watch), and the events are stored
// with the run. No controller runs here: the test sets the StatefulSet's
// status (2 ready) once, as its controller would, so the heal can see it.
func TestRealAPIServerScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kube-apiserver")
	}
	host, token := k8s.StartAPIServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := kubernetes.NewForConfig(&rest.Config{Host: host, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	const ns = "dbrig-scenario"
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	l := map[string]string{"app": "db"}
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "example/db"}}}
	for _, n := range []string{"db-0", "db-1"} {
		if _, err := c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: l}, Spec: spec}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	two := int32(2)
	sts, err := c.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Spec: appsv1.StatefulSetSpec{
		Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: l},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: l}, Spec: spec}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sts.Status = appsv1.StatefulSetStatus{Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2, CurrentReplicas: 2, UpdatedReplicas: 2}
	if sts, err = c.AppsV1().StatefulSets(ns).UpdateStatus(ctx, sts, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Every replicas value the StatefulSet's spec takes from now on.
	w, err := c.AppsV1().StatefulSets(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: sts.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var mu sync.Mutex
	var seen []int32
	go func() {
		for ev := range w.ResultChan() {
			if s, ok := ev.Object.(*appsv1.StatefulSet); ok && ev.Type == watch.Modified && s.Spec.Replicas != nil {
				mu.Lock()
				if len(seen) == 0 || seen[len(seen)-1] != *s.Spec.Replicas {
					seen = append(seen, *s.Spec.Replicas)
				}
				mu.Unlock()
			}
		}
	}()

	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	file := filepath.Join(dir, "k.yaml")
	if err := os.WriteFile(file, []byte(`name: k
seed: 7
system: {driver: null}
dataset: {records: 50}
workload: {files: [workloada]}
load: {model: open, rate: 100, clients: 2, duration: 5s}
kubernetes: {kubeconfig: `+kubeconfig+`, namespace: `+ns+`}
scenario:
  - {name: del, fault: pod-delete, target: pod/db-0, at: 1s}
  - {name: grow, fault: scale, target: statefulset/db, replicas: 5, at: 1s, for: 1s, every: 2s, count: 2}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	writeKubeconfig := func(token string) {
		if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: t, cluster: {server: "`+host+`", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: `+token+`}}]
contexts: [{name: t, context: {cluster: t, user: u}}]
current-context: t
`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A user without RBAC is stopped by the preflight, before anything is stored.
	writeKubeconfig(k8s.LimitedToken)
	b, err := experiment.ResolveBench(file, experiment.BenchOptions{Store: filepath.Join(dir, "denied.db")})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := experiment.Execute(ctx, b.Runs[0].Plan, experiment.Hooks{}); err == nil || out != nil || !experiment.IsInput(err) ||
		!strings.Contains(err.Error(), "missing RBAC in namespace "+ns) || !strings.Contains(err.Error(), "delete pods") || !strings.Contains(err.Error(), "patch statefulsets.apps") {
		t.Errorf("without RBAC: %v (outcome %v), want an input error naming delete pods and patch statefulsets.apps", err, out)
	}
	writeKubeconfig(token)
	store := filepath.Join(dir, "r.db")
	b, err = experiment.ResolveBench(file, experiment.BenchOptions{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	out, err := experiment.Execute(ctx, b.Runs[0].Plan, experiment.Hooks{})
	if err != nil {
		t.Fatal(err)
	}

	if _, err := c.CoreV1().Pods(ns).Get(ctx, "db-0", metav1.GetOptions{}); err == nil {
		t.Error("pod db-0 is still there after pod-delete")
	}
	if _, err := c.CoreV1().Pods(ns).Get(ctx, "db-1", metav1.GetOptions{}); err != nil {
		t.Errorf("pod db-1 was not a target: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // the watch's last event
	mu.Lock()
	if !slices.Equal(seen, []int32{5, 2, 5, 2}) {
		t.Errorf("replicas went %v, want [5 2 5 2]", seen)
	}
	mu.Unlock()

	s, err := results.Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := s.Run(ctx, out.RunID)
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
			t.Errorf("stored event %s: outcome %q, want %q", k, got[k], want)
		}
	}
	if len(out.Impacts) != 3 {
		t.Errorf("impacts %+v, want one per firing (3)", out.Impacts)
	}
}

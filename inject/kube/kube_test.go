package kube

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dbrig/dbrig/inject"
)

func pod(name, node string, ready bool, labels map[string]string) *corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "db", Labels: labels, UID: types.UID(name + "-uid1")},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "db"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "db", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
	}
}

func cluster() *fake.Clientset {
	l := map[string]string{"app": "pg"}
	three := int32(3)
	return fake.NewClientset(
		pod("pg-0", "n1", true, l), pod("pg-1", "n2", true, l), pod("pg-2", "n2", true, l),
		pod("other", "n2", true, map[string]string{"app": "other"}),
		&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "pg", Namespace: "db"},
			Spec:   appsv1.StatefulSetSpec{Replicas: &three, Selector: &metav1.LabelSelector{MatchLabels: l}},
			Status: appsv1.StatefulSetStatus{Replicas: 3, ReadyReplicas: 3}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}},
	)
}

func names(t *testing.T, tg Target) []string {
	t.Helper()
	pods, err := tg.Pods(context.Background(), cluster())
	if err != nil {
		t.Fatalf("%v: %v", tg, err)
	}
	var n []string
	for _, p := range pods {
		n = append(n, p.Name)
	}
	return n
}

func TestTargets(t *testing.T) {
	cases := []struct {
		t    Target
		want string
	}{
		{Target{Namespace: "db", Pod: "pg-1", Ordinal: -1}, "pg-1"},
		{Target{Namespace: "db", StatefulSet: "pg", Ordinal: 2}, "pg-2"},
		{Target{Namespace: "db", StatefulSet: "pg", Ordinal: -1}, "pg-0,pg-1,pg-2"},
		{Target{Namespace: "db", Selector: "app=pg", Ordinal: -1}, "pg-0,pg-1,pg-2"},
		{Target{Namespace: "db", Selector: "app in (pg,other)", Pick: "one", Ordinal: -1}, "other"},
	}
	for _, c := range cases {
		if got := strings.Join(names(t, c.t), ","); got != c.want {
			t.Errorf("%v: %s, want %s", c.t, got, c.want)
		}
	}
	_, err := Target{Namespace: "db", Selector: "app=none", Ordinal: -1}.Pods(context.Background(), cluster())
	if !errors.Is(err, ErrNoTarget) {
		t.Errorf("no pods: %v, want ErrNoTarget", err)
	}
	_, err = Target{Namespace: "db", StatefulSet: "pg", Ordinal: 7}.Pods(context.Background(), cluster())
	if !errors.Is(err, ErrNoTarget) || !strings.Contains(err.Error(), "pg-7") {
		t.Errorf("ordinal 7: %v, want ErrNoTarget naming pg-7", err)
	}
}

func TestNewRejects(t *testing.T) {
	c := cluster()
	ex := &fakeExec{}
	cases := []struct {
		kind string
		o    Options
		want string
	}{
		{"pod-delete", Options{Target: Target{Pod: "x"}}, "namespace"},
		{"pod-delete", Options{Target: Target{Namespace: "db"}}, "needs pod, statefulset or selector"},
		{"pod-delete", Options{Target: Target{Namespace: "db", Pod: "a", Selector: "b=c"}}, "one way"},
		{"pod-delete", Options{Target: Target{Namespace: "db", Selector: "a in"}}, "selector"},
		{"pod-delete", Options{Target: Target{Namespace: "db", Pod: "a", Pick: "some"}}, "pick"},
		{"pod-kill", Options{Target: Target{Namespace: "db", Pod: "a"}, Signal: "KILL"}, "PID 1"},
		{"pod-kill", Options{Target: Target{Namespace: "db", Pod: "a"}, Signal: "BOOM"}, "signal"},
		{"pod-kill", Options{Target: Target{Namespace: "db", Pod: "a"}, Process: "pg; rm -rf /"}, "plain process name"},
		{"scale", Options{Target: Target{Namespace: "db", Pod: "a"}}, "statefulset"},
		{"scale", Options{Target: Target{Namespace: "db", StatefulSet: "pg"}, Replicas: -1}, "replicas"},
		{"cordon", Options{}, "namespace"},
		{"chaos", Options{}, "unknown fault"},
	}
	for _, c2 := range cases {
		_, err := New(c2.kind, c2.o, c, ex)
		if err == nil || !strings.Contains(err.Error(), c2.want) ||
			(!errors.Is(err, inject.ErrBadOption) && !errors.Is(err, inject.ErrUnknownFault)) {
			t.Errorf("New(%s, %+v): %v, want an inject error naming %q", c2.kind, c2.o, err, c2.want)
		}
	}
}

func TestPodDelete(t *testing.T) {
	c := cluster()
	f, err := New("pod-delete", Options{Target: Target{Namespace: "db", Selector: "app=pg"}, Wait: 5 * time.Second}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := f.Inject(ctx, inject.Target{}); err != nil {
		t.Fatal(err)
	}
	left, _ := c.CoreV1().Pods("db").List(ctx, metav1.ListOptions{})
	if len(left.Items) != 1 || left.Items[0].Name != "other" {
		t.Fatalf("after pod-delete: %v, want only other", left.Items)
	}
	// The StatefulSet controller brings pg-0..2 back, ready, with new UIDs.
	go func() {
		time.Sleep(300 * time.Millisecond)
		for _, n := range []string{"pg-0", "pg-1", "pg-2"} {
			p := pod(n, "n1", true, map[string]string{"app": "pg"})
			p.UID = types.UID(n + "-uid2")
			_, _ = c.CoreV1().Pods("db").Create(ctx, p, metav1.CreateOptions{})
		}
	}()
	start := time.Now()
	if err := f.Heal(ctx, inject.Target{}); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 250*time.Millisecond {
		t.Errorf("Heal returned before the replacements existed")
	}
}

func TestPodDeleteHealTimesOut(t *testing.T) {
	c := cluster()
	f, _ := New("pod-delete", Options{Target: Target{Namespace: "db", Pod: "pg-1"}, Wait: 500 * time.Millisecond}, c, nil)
	if err := f.Inject(context.Background(), inject.Target{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Heal(context.Background(), inject.Target{}); err == nil || !strings.Contains(err.Error(), "did not happen") {
		t.Errorf("Heal with no replacement: %v", err)
	}
}

type fakeExec struct {
	mu    sync.Mutex
	calls []string
	after func(pod string)
}

func (e *fakeExec) Exec(_ context.Context, ns, pod, container string, cmd []string) (string, string, error) {
	e.mu.Lock()
	e.calls = append(e.calls, ns+"/"+pod+"/"+container+": "+strings.Join(cmd, " "))
	e.mu.Unlock()
	if e.after != nil {
		e.after(pod)
	}
	return "", "", errors.New("command terminated with exit code 137")
}

func TestPodKill(t *testing.T) {
	c := cluster()
	ctx := context.Background()
	ex := &fakeExec{}
	// The kubelet restarts the container whose PID 1 got the signal.
	ex.after = func(name string) {
		p, _ := c.CoreV1().Pods("db").Get(ctx, name, metav1.GetOptions{})
		p.Status.ContainerStatuses[0].RestartCount++
		_, _ = c.CoreV1().Pods("db").UpdateStatus(ctx, p, metav1.UpdateOptions{})
	}
	f, err := New("pod-kill", Options{Target: Target{Namespace: "db", StatefulSet: "pg", Ordinal: 1}, Wait: 2 * time.Second}, c, ex)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Inject(ctx, inject.Target{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ex.calls, ";"); got != "db/pg-1/db: kill -TERM 1" {
		t.Errorf("exec %q", got)
	}
	if err := f.Heal(ctx, inject.Target{}); err != nil {
		t.Fatal(err)
	}
	// A process by name: pkill, and no restart is expected.
	ex2 := &fakeExec{}
	f, _ = New("pod-kill", Options{Target: Target{Namespace: "db", Selector: "app=pg", Pick: "one"}, Process: "postgres", Container: "db"}, c, ex2)
	if err := f.Inject(ctx, inject.Target{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ex2.calls, ";"); got != "db/pg-0/db: pkill -KILL -x postgres" {
		t.Errorf("exec %q", got)
	}
}

func TestPodKillSurvivorIsReported(t *testing.T) {
	c := cluster()
	f, _ := New("pod-kill", Options{Target: Target{Namespace: "db", Pod: "pg-0"}, Wait: 500 * time.Millisecond}, c, &fakeExec{})
	err := f.Inject(context.Background(), inject.Target{})
	if err == nil || !strings.Contains(err.Error(), "stop or restart") {
		t.Errorf("a container that did not restart: %v", err)
	}
}

func TestScale(t *testing.T) {
	c := cluster()
	ctx := context.Background()
	// The StatefulSet controller: status follows spec after a moment.
	c.PrependReactor("patch", "statefulsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		go func() {
			time.Sleep(100 * time.Millisecond)
			s, _ := c.AppsV1().StatefulSets("db").Get(ctx, "pg", metav1.GetOptions{})
			s.Status.Replicas, s.Status.ReadyReplicas = *s.Spec.Replicas, *s.Spec.Replicas
			_, _ = c.AppsV1().StatefulSets("db").UpdateStatus(ctx, s, metav1.UpdateOptions{})
		}()
		return false, nil, nil
	})
	f, err := New("scale", Options{Target: Target{Namespace: "db", StatefulSet: "pg"}, Replicas: 5, Wait: 3 * time.Second}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Inject(ctx, inject.Target{}); err != nil {
		t.Fatal(err)
	}
	s, _ := c.AppsV1().StatefulSets("db").Get(ctx, "pg", metav1.GetOptions{})
	if *s.Spec.Replicas != 5 {
		t.Errorf("replicas %d after scale, want 5", *s.Spec.Replicas)
	}
	if err := f.Heal(ctx, inject.Target{}); err != nil {
		t.Fatal(err)
	}
	s, _ = c.AppsV1().StatefulSets("db").Get(ctx, "pg", metav1.GetOptions{})
	if *s.Spec.Replicas != 3 || s.Status.ReadyReplicas != 3 {
		t.Errorf("after heal: spec %d, ready %d, want 3 and 3", *s.Spec.Replicas, s.Status.ReadyReplicas)
	}
}

func TestCordonAndDrain(t *testing.T) {
	ctx := context.Background()
	for _, drain := range []bool{false, true} {
		c := cluster()
		ds := pod("agent", "n2", true, nil)
		ds.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent", APIVersion: "apps/v1", UID: "x"}}
		if _, err := c.CoreV1().Pods("db").Create(ctx, ds, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		var evicted []string
		c.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if a.GetSubresource() != "eviction" {
				return false, nil, nil
			}
			name := a.(k8stesting.CreateAction).GetObject().(metav1.Object).GetName()
			evicted = append(evicted, name)
			return true, nil, nil
		})
		kind := "cordon"
		if drain {
			kind = "drain"
		}
		// The node of pod pg-1 (n2).
		f, err := New(kind, Options{Target: Target{Namespace: "db", Pod: "pg-1"}}, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Inject(ctx, inject.Target{}); err != nil {
			t.Fatal(err)
		}
		n, _ := c.CoreV1().Nodes().Get(ctx, "n2", metav1.GetOptions{})
		if !n.Spec.Unschedulable {
			t.Errorf("%s: node n2 still schedulable", kind)
		}
		want := ""
		if drain {
			want = "other,pg-1,pg-2" // not the DaemonSet's pod, not pg-0 on n1
		}
		got := strings.Join(sortStrings(evicted), ",")
		if got != want {
			t.Errorf("%s evicted %q, want %q", kind, got, want)
		}
		if err := f.Heal(ctx, inject.Target{}); err != nil {
			t.Fatal(err)
		}
		if n, _ = c.CoreV1().Nodes().Get(ctx, "n2", metav1.GetOptions{}); n.Spec.Unschedulable {
			t.Errorf("%s: node n2 still cordoned after heal", kind)
		}
	}
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

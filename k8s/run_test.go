package k8s

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	authv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
)

// fakeCluster is a fake clientset with a namespace and an authorizer that
// denies the permissions in deny.
func fakeCluster(ns string, deny ...Permission) *fake.Clientset {
	c := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	c.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authv1.SelfSubjectAccessReview).DeepCopy()
		ra := r.Spec.ResourceAttributes
		r.Status.Allowed = ra.Namespace == ns
		for _, d := range deny {
			if d == (Permission{ra.Verb, ra.Group, ra.Resource, ra.Subresource}) {
				r.Status.Allowed = false
			}
		}
		return true, r, nil
	})
	return c
}

func TestPreflight(t *testing.T) {
	ctx := context.Background()
	if err := Preflight(ctx, fakeCluster("bench"), "bench", RunPermissions()); err != nil {
		t.Fatalf("allowed: %v", err)
	}
	err := Preflight(ctx, fakeCluster("bench"), "other", RunPermissions())
	if !errors.Is(err, ErrNoNamespace) || !strings.Contains(err.Error(), `"other"`) {
		t.Errorf("missing namespace: %v, want ErrNoNamespace naming it", err)
	}
	deny := []Permission{{"create", "batch", "jobs", ""}, {"get", "", "pods", "log"}}
	err = Preflight(ctx, fakeCluster("bench", deny...), "bench", RunPermissions())
	var re *RBACError
	if !errors.As(err, &re) || len(re.Denied) != 2 || !strings.Contains(err.Error(), "create jobs.batch, get pods/log") ||
		!strings.Contains(err.Error(), "deploy/rbac.yaml") {
		t.Errorf("denied: %v, want an RBACError naming create jobs.batch and get pods/log", err)
	}
}

func TestPreflightUnreachable(t *testing.T) {
	c, err := kubernetes.NewForConfig(&rest.Config{Host: "http://127.0.0.1:1", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = Preflight(ctx, c, "bench", RunPermissions())
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "kubeconfig") {
		t.Errorf("unreachable API server: %v, want ErrUnreachable telling to check the kubeconfig", err)
	}
}

// remaining lists what the fake holds with the run's label.
func remaining(t *testing.T, c kubernetes.Interface, ns, runID string) []string {
	t.Helper()
	ctx := context.Background()
	sel := metav1.ListOptions{LabelSelector: Selector(runID)}
	var left []string
	jobs, _ := c.BatchV1().Jobs(ns).List(ctx, sel)
	for _, o := range jobs.Items {
		left = append(left, "job/"+o.Name)
	}
	pods, _ := c.CoreV1().Pods(ns).List(ctx, sel)
	for _, o := range pods.Items {
		left = append(left, "pod/"+o.Name)
	}
	svcs, _ := c.CoreV1().Services(ns).List(ctx, sel)
	for _, o := range svcs.Items {
		left = append(left, "service/"+o.Name)
	}
	cms, _ := c.CoreV1().ConfigMaps(ns).List(ctx, sel)
	for _, o := range cms.Items {
		left = append(left, "configmap/"+o.Name)
	}
	secs, _ := c.CoreV1().Secrets(ns).List(ctx, sel)
	for _, o := range secs.Items {
		left = append(left, "secret/"+o.Name)
	}
	return left
}

// controller plays the Job controller and kubelet: once the coordinator Job
// exists it adds its pod, then marks the workers and the coordinator done
// (or the coordinator failed).
// The fake's watch does not replay events since the list's resource
// version (a real API server does), so it starts once Wait watches.
func controller(t *testing.T, ctx context.Context, c *fake.Clientset, s Spec, fail bool, watching <-chan struct{}) {
	ns, coord, workers := s.Namespace, Name(s.RunID)+"-coordinator", Name(s.RunID)+"-workers"
	select {
	case <-watching:
	case <-ctx.Done():
		return
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: coord + "-abc", Namespace: ns, Labels: labels(s.RunID, RoleCoordinator)}}
	if _, err := c.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Error(err)
		return
	}
	set := func(name string, st batchv1.JobStatus) {
		j, err := c.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		j.Status = st
		if _, err := c.BatchV1().Jobs(ns).UpdateStatus(ctx, j, metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
	}
	set(coord, batchv1.JobStatus{Active: 1})
	set(workers, batchv1.JobStatus{Active: int32(s.Workers)})
	time.Sleep(20 * time.Millisecond)
	set(workers, batchv1.JobStatus{Succeeded: int32(s.Workers)})
	cond := batchv1.JobComplete
	if fail {
		cond = batchv1.JobFailed
	}
	set(coord, batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue}}})
}

func TestRunCreatesWaitsAndCleansUp(t *testing.T) {
	for _, fail := range []bool{false, true} {
		s := testSpec()
		c := fakeCluster(s.Namespace)
		// Something of another run must survive the cleanup.
		other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "keep", Namespace: s.Namespace, Labels: labels("other", "")}}
		if _, err := c.CoreV1().ConfigMaps(s.Namespace).Create(context.Background(), other, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		o, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		watching := make(chan struct{})
		var once sync.Once
		c.PrependWatchReactor("jobs", func(k8stesting.Action) (bool, watch.Interface, error) {
			defer time.AfterFunc(20*time.Millisecond, func() { once.Do(func() { close(watching) }) })
			return false, nil, nil
		})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); controller(t, ctx, c, s, fail, watching) }()
		var out bytes.Buffer
		err = Run(ctx, c, &s, o, &out, &out)
		wg.Wait()
		cancel()
		switch {
		case fail && !errors.Is(err, ErrFailed):
			t.Errorf("failed coordinator: %v, want ErrFailed", err)
		case !fail && err != nil:
			t.Errorf("Run: %v\n%s", err, out.String())
		}
		for _, want := range []string{"created run r1", "workers 4: 4 running", "coordinator succeeded", "coordinator's log follows", "fake logs", "deleted 6 objects"} {
			if fail && strings.Contains(want, "succeeded") {
				want = "coordinator failed"
			}
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
		}
		if left := remaining(t, c, s.Namespace, s.RunID); len(left) > 0 {
			t.Errorf("left after the run: %v", left)
		}
		if _, err := c.CoreV1().ConfigMaps(s.Namespace).Get(context.Background(), "keep", metav1.GetOptions{}); err != nil {
			t.Errorf("another run's object was deleted: %v", err)
		}
		// Jobs were deleted with foreground propagation.
		for _, a := range c.Actions() {
			if d, ok := a.(k8stesting.DeleteAction); ok && a.GetResource().Resource == "jobs" {
				if p := d.GetDeleteOptions().PropagationPolicy; p == nil || *p != metav1.DeletePropagationForeground {
					t.Errorf("job deleted with propagation %v, want Foreground", p)
				}
			}
		}
	}
}

func TestRunCleansUpOnCancel(t *testing.T) {
	s := testSpec()
	c := fakeCluster(s.Namespace)
	o, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Ctrl-C once the workers' Job exists (nobody ever completes it).
	c.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.CreateAction).GetObject().(*batchv1.Job).Name == Name(s.RunID)+"-workers" {
			time.AfterFunc(50*time.Millisecond, cancel)
		}
		return false, nil, nil
	})
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- Run(ctx, c, &s, o, &out, &out) }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel: %v, want context.Canceled", err)
	}
	if left := remaining(t, c, s.Namespace, s.RunID); len(left) > 0 {
		t.Errorf("left after Ctrl-C: %v\n%s", left, out.String())
	}
	if !strings.Contains(out.String(), "deleted 5 objects") {
		t.Errorf("output: %s", out.String())
	}
}

func TestRunCleansUpWhenCreateFails(t *testing.T) {
	s := testSpec()
	c := fakeCluster(s.Namespace)
	c.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.CreateAction).GetObject().(*batchv1.Job).Name == Name(s.RunID)+"-workers" {
			return true, nil, errors.New("admission webhook said no")
		}
		return false, nil, nil
	})
	o, _ := Build(s)
	var out bytes.Buffer
	err := Run(context.Background(), c, &s, o, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "create job dbrig-r1-workers") {
		t.Errorf("Run: %v, want the failed create named", err)
	}
	if left := remaining(t, c, s.Namespace, s.RunID); len(left) > 0 {
		t.Errorf("left after a failed create: %v", left)
	}
}

func TestWaitStopsOnPodThatCannotStart(t *testing.T) {
	s := testSpec()
	c := fakeCluster(s.Namespace)
	o, _ := Build(s)
	ctx := context.Background()
	if err := Create(ctx, c, o.List()); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "dbrig-r1-workers-0-x", Namespace: s.Namespace, Labels: labels(s.RunID, RoleWorker)},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{
			Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "no such image"},
		}}}},
	}
	if _, err := c.CoreV1().Pods(s.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	err := Wait(wctx, c, &s, nil)
	if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "ImagePullBackOff") {
		t.Errorf("Wait: %v, want ErrFailed naming ImagePullBackOff", err)
	}
}

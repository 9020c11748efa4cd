package k8s

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	authv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// Errors of the checks made before anything is created.
var (
	// ErrUnreachable: the API server did not answer.
	ErrUnreachable = errors.New("cannot reach the Kubernetes API server")
	// ErrNoNamespace: the namespace does not exist.
	ErrNoNamespace = errors.New("namespace not found")
	// ErrFailed: the coordinator's Job failed (or a pod cannot start).
	ErrFailed = errors.New("distributed run failed on Kubernetes")
)

// Permission is one thing `dbrig k8s run` does through the API.
type Permission struct {
	Verb, Group, Resource, Subresource string
}

func (p Permission) String() string {
	r := p.Resource
	if p.Group != "" {
		r += "." + p.Group
	}
	if p.Subresource != "" {
		r += "/" + p.Subresource
	}
	return p.Verb + " " + r
}

// RunPermissions are exactly the namespaced permissions `dbrig k8s run`
// uses (deploy/rbac.yaml grants these and no more).
func RunPermissions() []Permission {
	var ps []Permission
	for _, r := range []struct{ group, resource string }{{"", "secrets"}, {"", "configmaps"}, {"", "services"}, {"batch", "jobs"}} {
		ps = append(ps, Permission{"create", r.group, r.resource, ""}, Permission{"list", r.group, r.resource, ""}, Permission{"delete", r.group, r.resource, ""})
	}
	return append(ps,
		Permission{"watch", "batch", "jobs", ""},
		Permission{"list", "", "pods", ""},
		Permission{"delete", "", "pods", ""},
		Permission{"get", "", "pods", "log"},
	)
}

// RBACError lists the permissions the caller lacks in a namespace.
type RBACError struct {
	Namespace string
	Denied    []Permission
}

func (e *RBACError) Error() string {
	d := make([]string, len(e.Denied))
	for i, p := range e.Denied {
		d[i] = p.String()
	}
	return fmt.Sprintf("missing RBAC in namespace %s: %s (apply deploy/rbac.yaml and bind its Role dbrig-runner to your user or service account)",
		e.Namespace, strings.Join(d, ", "))
}

// Preflight checks, before anything is created, that the API server
// answers, that the namespace exists and that the caller may do everything a
// run does (a SelfSubjectAccessReview per permission).
func Preflight(ctx context.Context, c kubernetes.Interface, ns string, perms []Permission) error {
	if err := reachable(ctx, c); err != nil {
		return err
	}
	if _, err := c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
		switch {
		case apierrors.IsNotFound(err):
			return fmt.Errorf("%w: %q (create it with kubectl create namespace %s, or pass --namespace)", ErrNoNamespace, ns, ns)
		case apierrors.IsForbidden(err):
			// May not read namespaces: a Role cannot grant it. Creating
			// will say so if the namespace is missing.
		default:
			return fmt.Errorf("k8s: namespace %s: %w", ns, err)
		}
	}
	denied := []Permission{}
	for _, p := range perms {
		r, err := c.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authv1.SelfSubjectAccessReview{
			Spec: authv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authv1.ResourceAttributes{
				Namespace: ns, Verb: p.Verb, Group: p.Group, Resource: p.Resource, Subresource: p.Subresource,
			}},
		}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("k8s: access review of %s: %w", p, err)
		}
		if !r.Status.Allowed {
			denied = append(denied, p)
		}
	}
	if len(denied) > 0 {
		return &RBACError{Namespace: ns, Denied: denied}
	}
	return nil
}

func reachable(ctx context.Context, c kubernetes.Interface) error {
	type answer struct {
		v   string
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		v, err := c.Discovery().ServerVersion()
		if err != nil {
			ch <- answer{err: err}
			return
		}
		ch <- answer{v: v.GitVersion}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			return fmt.Errorf("%w: %w (check your kubeconfig and context: kubectl cluster-info)", ErrUnreachable, a.err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrUnreachable, ctx.Err())
	}
}

// Create creates the objects in order. On error, what was created stays:
// the caller deletes by the run's label (Cleanup).
func Create(ctx context.Context, c kubernetes.Interface, objs []runtime.Object) error {
	for _, obj := range objs {
		var err error
		var what string
		switch o := obj.(type) {
		case *corev1.Secret:
			what = "secret " + o.Name
			_, err = c.CoreV1().Secrets(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.ConfigMap:
			what = "configmap " + o.Name
			_, err = c.CoreV1().ConfigMaps(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Service:
			what = "service " + o.Name
			_, err = c.CoreV1().Services(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *batchv1.Job:
			what = "job " + o.Name
			_, err = c.BatchV1().Jobs(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		default:
			return fmt.Errorf("k8s: cannot create a %T", obj)
		}
		if err != nil {
			return fmt.Errorf("k8s: create %s: %w", what, err)
		}
	}
	return nil
}

// Progress is what a run looks like at one moment.
type Progress struct {
	Coordinator string // pending, running, succeeded, failed
	Workers     int
	Active      int32
	Succeeded   int32
	Failed      int32
}

func (p Progress) String() string {
	return fmt.Sprintf("coordinator %s; workers %d: %d running, %d done, %d failed", p.Coordinator, p.Workers, p.Active, p.Succeeded, p.Failed)
}

func jobState(j *batchv1.Job) string {
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete, batchv1.JobSuccessCriteriaMet:
			return "succeeded"
		case batchv1.JobFailed, batchv1.JobFailureTarget:
			return "failed"
		}
	}
	if j.Status.Active > 0 {
		return "running"
	}
	return "pending"
}

// podProblem names a pod that cannot start (a bad image, a missing Secret
// key): waiting for it would wait forever.
func podProblem(pods []corev1.Pod) string {
	for _, p := range pods {
		for _, cs := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
			if w := cs.State.Waiting; w != nil {
				switch w.Reason {
				case "ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError", "CreateContainerError":
					return fmt.Sprintf("pod %s: %s: %s", p.Name, w.Reason, w.Message)
				}
			}
		}
	}
	return ""
}

// Wait watches the run's Jobs until the coordinator's finishes, calling
// progress on every change. It returns ErrFailed when the coordinator fails
// or a pod cannot start.
func Wait(ctx context.Context, c kubernetes.Interface, s *Spec, progress func(Progress)) error {
	ns := s.Namespace
	coordName, workersName := Name(s.RunID)+"-coordinator", Name(s.RunID)+"-workers"
	last := Progress{}
	check := func(jobs []batchv1.Job) (bool, error) {
		p := Progress{Coordinator: "pending", Workers: s.Workers}
		for i := range jobs {
			switch jobs[i].Name {
			case coordName:
				p.Coordinator = jobState(&jobs[i])
			case workersName:
				p.Active, p.Succeeded, p.Failed = jobs[i].Status.Active, jobs[i].Status.Succeeded, jobs[i].Status.Failed
			}
		}
		if p != last && progress != nil {
			progress(p)
		}
		last = p
		switch p.Coordinator {
		case "succeeded":
			return true, nil
		case "failed":
			return true, fmt.Errorf("%w: the coordinator's Job %s failed (its log is above)", ErrFailed, coordName)
		}
		return false, nil
	}
	sel := metav1.ListOptions{LabelSelector: Selector(s.RunID)}
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		list, err := c.BatchV1().Jobs(ns).List(ctx, sel)
		if err != nil {
			return fmt.Errorf("k8s: list jobs: %w", err)
		}
		if done, err := check(list.Items); done {
			return err
		}
		opts := sel
		opts.ResourceVersion = list.ResourceVersion
		w, err := c.BatchV1().Jobs(ns).Watch(ctx, opts)
		if err != nil {
			return fmt.Errorf("k8s: watch jobs: %w", err)
		}
		jobs := map[string]batchv1.Job{}
		for _, j := range list.Items {
			jobs[j.Name] = j
		}
		done, err := func() (bool, error) {
			defer w.Stop()
			for {
				select {
				case <-ctx.Done():
					return true, ctx.Err()
				case ev, ok := <-w.ResultChan():
					if !ok {
						return false, nil // re-list and watch again
					}
					j, isJob := ev.Object.(*batchv1.Job)
					if !isJob {
						return false, nil // an error event: start over
					}
					if ev.Type == watch.Deleted {
						delete(jobs, j.Name)
						if j.Name == coordName {
							return true, fmt.Errorf("%w: the coordinator's Job %s was deleted by someone else", ErrFailed, coordName)
						}
					} else {
						jobs[j.Name] = *j
					}
					l := make([]batchv1.Job, 0, len(jobs))
					for _, k := range sortedKeys(jobs) {
						l = append(l, jobs[k])
					}
					if done, err := check(l); done {
						return true, err
					}
				case <-tick.C:
					pods, err := c.CoreV1().Pods(ns).List(ctx, sel)
					if err != nil {
						return true, fmt.Errorf("k8s: list pods: %w", err)
					}
					if msg := podProblem(pods.Items); msg != "" {
						return true, fmt.Errorf("%w: %s", ErrFailed, msg)
					}
				}
			}
		}()
		if done {
			return err
		}
	}
}

// Logs returns the coordinator pod's log (its summary and run id).
func Logs(ctx context.Context, c kubernetes.Interface, s *Spec) (string, error) {
	pods, err := c.CoreV1().Pods(s.Namespace).List(ctx, metav1.ListOptions{LabelSelector: Selector(s.RunID) + "," + LabelRole + "=" + RoleCoordinator})
	if err != nil {
		return "", fmt.Errorf("k8s: list coordinator pods: %w", err)
	}
	if len(pods.Items) == 0 {
		return "", fmt.Errorf("k8s: no coordinator pod for run %s", s.RunID)
	}
	sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
	var b strings.Builder
	for _, p := range pods.Items {
		raw, err := c.CoreV1().Pods(s.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		if err != nil {
			return b.String(), fmt.Errorf("k8s: log of pod %s: %w", p.Name, err)
		}
		b.Write(raw)
	}
	return b.String(), nil
}

// Cleanup deletes every object labelled with the run (Jobs with foreground
// propagation, so their pods go first; then any pod left, e.g. orphaned
// where no garbage collector runs) and returns what it deleted, in order.
// Objects already gone are fine.
func Cleanup(ctx context.Context, c kubernetes.Interface, ns, runID string) ([]string, error) {
	sel := metav1.ListOptions{LabelSelector: Selector(runID)}
	// Foreground for Jobs only: it puts a finalizer on the object that the
	// garbage collector removes once the dependents (pods) are gone; on an
	// object without dependents it would only delay the deletion (and
	// forever where no garbage collector runs, as the real-API-server test
	// showed).
	fg := metav1.DeletePropagationForeground
	jobDel := metav1.DeleteOptions{PropagationPolicy: &fg}
	del := metav1.DeleteOptions{}
	var deleted []string
	var errs []error
	gone := func(what string, err error) {
		switch {
		case err == nil:
			deleted = append(deleted, what)
		case apierrors.IsNotFound(err):
		default:
			errs = append(errs, fmt.Errorf("delete %s: %w", what, err))
		}
	}
	if l, err := c.BatchV1().Jobs(ns).List(ctx, sel); err != nil {
		errs = append(errs, fmt.Errorf("list jobs: %w", err))
	} else {
		for _, o := range l.Items {
			gone("job/"+o.Name, c.BatchV1().Jobs(ns).Delete(ctx, o.Name, jobDel))
		}
	}
	if l, err := c.CoreV1().Pods(ns).List(ctx, sel); err != nil {
		errs = append(errs, fmt.Errorf("list pods: %w", err))
	} else {
		for _, o := range l.Items {
			gone("pod/"+o.Name, c.CoreV1().Pods(ns).Delete(ctx, o.Name, del))
		}
	}
	if l, err := c.CoreV1().Services(ns).List(ctx, sel); err != nil {
		errs = append(errs, fmt.Errorf("list services: %w", err))
	} else {
		for _, o := range l.Items {
			gone("service/"+o.Name, c.CoreV1().Services(ns).Delete(ctx, o.Name, del))
		}
	}
	if l, err := c.CoreV1().ConfigMaps(ns).List(ctx, sel); err != nil {
		errs = append(errs, fmt.Errorf("list configmaps: %w", err))
	} else {
		for _, o := range l.Items {
			gone("configmap/"+o.Name, c.CoreV1().ConfigMaps(ns).Delete(ctx, o.Name, del))
		}
	}
	if l, err := c.CoreV1().Secrets(ns).List(ctx, sel); err != nil {
		errs = append(errs, fmt.Errorf("list secrets: %w", err))
	} else {
		for _, o := range l.Items {
			gone("secret/"+o.Name, c.CoreV1().Secrets(ns).Delete(ctx, o.Name, del))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return deleted, fmt.Errorf("k8s: cleanup of run %s in %s (delete by hand: kubectl -n %s delete job,pod,service,configmap,secret -l %s): %w",
			runID, ns, ns, Selector(runID), err)
	}
	return deleted, nil
}

// Run creates the objects, waits for the coordinator, copies its log to
// log, and deletes everything it created — also when ctx is cancelled
// (Ctrl-C) or anything fails. Progress goes to out. Preflight must have
// passed.
func Run(ctx context.Context, c kubernetes.Interface, s *Spec, objs *Objects, out, log io.Writer) (err error) {
	defer func() {
		// Cleanup must run after a cancel too: a context of its own.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		deleted, cerr := Cleanup(cctx, c, s.Namespace, s.RunID)
		fmt.Fprintf(out, "k8s: deleted %d objects of run %s (%s)\n", len(deleted), s.RunID, strings.Join(deleted, ", "))
		err = errors.Join(err, cerr)
	}()
	if err := Create(ctx, c, objs.List()); err != nil {
		return err
	}
	fmt.Fprintf(out, "k8s: created run %s in namespace %s: %d workers, coordinator at %s\n", s.RunID, s.Namespace, s.Workers, CoordinatorURL(s))
	werr := Wait(ctx, c, s, func(p Progress) { fmt.Fprintf(out, "k8s: %s\n", p) })
	if ctx.Err() != nil {
		return werr
	}
	logs, lerr := Logs(ctx, c, s)
	if logs != "" {
		fmt.Fprintf(out, "k8s: the coordinator's log follows\n")
		fmt.Fprint(log, logs)
		if !strings.HasSuffix(logs, "\n") {
			fmt.Fprintln(log)
		}
	}
	return errors.Join(werr, lerr)
}

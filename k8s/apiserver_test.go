package k8s

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/inject/kube"
)

// apiServer is a real kube-apiserver (built by scripts/build-kube-apiserver.sh)
// with its own etcd, both on loopback, both stopped by PID.
type apiServer struct {
	host string
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startProc starts a command in its own process group and stops it (by PID,
// the group) when the test ends, also on failure.
func startProc(t *testing.T, log string, name string, args ...string) {
	t.Helper()
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-done
		}
		f.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log)
			if len(b) > 4000 {
				b = b[len(b)-4000:]
			}
			t.Logf("%s log (end):\n%s", name, b)
		}
	})
}

func kubeAPIServerBinary(t *testing.T) string {
	if p := os.Getenv("DBRIG_KUBE_APISERVER"); p != "" {
		return p
	}
	cache := os.Getenv("DBRIG_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "dbrig")
	}
	p := filepath.Join(cache, "kube-v1.35.4", "kube-apiserver")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no kube-apiserver at %s: build it with scripts/build-kube-apiserver.sh (about 45 min on a loaded 2-core machine), or set DBRIG_KUBE_APISERVER", p)
	}
	return p
}

const (
	adminToken   = "admin-token-for-tests"
	limitedToken = "limited-token-for-tests"
)

func startAPIServer(t *testing.T) *apiServer {
	bin := kubeAPIServerBinary(t)
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		t.Skip("no etcd on PATH (apt-get install etcd-server)")
	}
	dir := t.TempDir()
	client, peer, port := freePort(t), freePort(t), freePort(t)
	startProc(t, filepath.Join(dir, "etcd.log"), etcd, "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", fmt.Sprintf("http://127.0.0.1:%d", client), "--advertise-client-urls", fmt.Sprintf("http://127.0.0.1:%d", client),
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer), "--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer),
		"--initial-cluster", fmt.Sprintf("default=http://127.0.0.1:%d", peer))

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "sa.key")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(adminToken+",admin,1,system:masters\n"+limitedToken+",limited,2,\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	startProc(t, filepath.Join(dir, "apiserver.log"), bin,
		"--etcd-servers", fmt.Sprintf("http://127.0.0.1:%d", client),
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", strconv.Itoa(port),
		"--cert-dir", filepath.Join(dir, "certs"),
		"--token-auth-file", tokens, "--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc", "--service-account-key-file", keyFile,
		"--service-account-signing-key-file", keyFile,
		"--service-cluster-ip-range", "10.96.0.0/24", // allocation only: no traffic goes anywhere
		"--enable-priority-and-fairness=false")

	s := &apiServer{host: fmt.Sprintf("https://127.0.0.1:%d", port)}
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(90 * time.Second)
	for {
		req, _ := http.NewRequest("GET", s.host+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-apiserver not ready within 90 s: %v", err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	return s
}

func (s *apiServer) client(t *testing.T, token string) kubernetes.Interface {
	c, err := kubernetes.NewForConfig(&rest.Config{Host: s.host, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRealAPIServer validates what dbrig k8s run does against a real API
// server: preflight (missing RBAC, then deploy/rbac.yaml's Role), the
// objects accepted as built, cleanup by label, a missing namespace, and the
// pod-delete and scale faults. No controller manager runs, so no pod of a
// Job appears and foreground deletion leaves Jobs marked for deletion.
func TestRealAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	s := startAPIServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	admin, limited := s.client(t, adminToken), s.client(t, limitedToken)
	const ns = "dbrig-test"
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	if err := Preflight(ctx, admin, "no-such-ns", RunPermissions()); !errors.Is(err, ErrNoNamespace) {
		t.Errorf("missing namespace: %v, want ErrNoNamespace", err)
	}
	err := Preflight(ctx, limited, ns, RunPermissions())
	var re *RBACError
	if !errors.As(err, &re) || len(re.Denied) != len(RunPermissions()) {
		t.Fatalf("no RBAC: %v, want every permission denied", err)
	}

	// deploy/rbac.yaml's Role, bound to the limited user: now allowed.
	applyRunnerRole(t, ctx, admin, ns, "limited")
	deadline := time.Now().Add(20 * time.Second)
	for {
		err = Preflight(ctx, limited, ns, RunPermissions())
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("with deploy/rbac.yaml's Role: %v", err)
	}

	spec := testSpec()
	spec.Namespace = ns
	objs, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := Create(ctx, limited, objs.List()); err != nil {
		t.Fatalf("the API server refused the objects: %v", err)
	}
	j, err := admin.BatchV1().Jobs(ns).Get(ctx, "dbrig-r1-workers", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *j.Spec.Completions != 4 || string(*j.Spec.CompletionMode) != "Indexed" {
		t.Errorf("stored workers job: completions %d mode %v", *j.Spec.Completions, *j.Spec.CompletionMode)
	}
	svc, err := admin.CoreV1().Services(ns).Get(ctx, "dbrig-r1-coordinator", metav1.GetOptions{})
	if err != nil || svc.Spec.ClusterIP == "" {
		t.Errorf("coordinator service: %v, cluster IP %q", err, svc.Spec.ClusterIP)
	}

	// Wait (list + watch as the limited user) sees the coordinator's Job
	// finish; the status is written as the Job controller would.
	waited := make(chan error, 1)
	var seen []Progress
	go func() {
		waited <- Wait(ctx, limited, &spec, func(p Progress) { seen = append(seen, p) })
	}()
	time.Sleep(500 * time.Millisecond)
	cj, err := admin.BatchV1().Jobs(ns).Get(ctx, "dbrig-r1-coordinator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	cj.Status = batchv1.JobStatus{StartTime: &now, CompletionTime: &now, Succeeded: 1, Conditions: []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now},
	}}
	if _, err := admin.BatchV1().Jobs(ns).UpdateStatus(ctx, cj, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("job status: %v", err)
	}
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("Wait: %v", err)
		}
		if len(seen) < 2 || seen[len(seen)-1].Coordinator != "succeeded" {
			t.Errorf("progress seen: %v", seen)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Wait did not see the coordinator's Job complete")
	}

	deleted, err := Cleanup(ctx, limited, ns, spec.RunID)
	if err != nil {
		t.Fatalf("cleanup: %v", err)
	}
	if len(deleted) != 5 {
		t.Errorf("deleted %v, want 5 objects", deleted)
	}
	// Without a garbage collector, foreground deletion only marks the Jobs.
	jobs, _ := admin.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: Selector(spec.RunID)})
	for _, j := range jobs.Items {
		if j.DeletionTimestamp == nil {
			t.Errorf("job %s not being deleted", j.Name)
		}
	}
	for what, n := range map[string]func() int{
		"services": func() int {
			l, _ := admin.CoreV1().Services(ns).List(ctx, metav1.ListOptions{LabelSelector: Selector(spec.RunID)})
			return len(l.Items)
		},
		"configmaps": func() int {
			l, _ := admin.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: Selector(spec.RunID)})
			return len(l.Items)
		},
		"secrets": func() int {
			l, _ := admin.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: Selector(spec.RunID)})
			return len(l.Items)
		},
	} {
		if left := n(); left != 0 {
			t.Errorf("%d %s left after cleanup", left, what)
		}
	}

	t.Run("faults", func(t *testing.T) { realFaults(t, ctx, admin) })
}

func applyRunnerRole(t *testing.T, ctx context.Context, admin kubernetes.Interface, ns, user string) {
	b, err := os.ReadFile("../deploy/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var r rbacv1.Role
		if err := yaml.Unmarshal([]byte(doc), &r); err != nil || r.Kind != "Role" || r.Name != "dbrig-runner" {
			continue
		}
		r.Namespace = ns
		if _, err := admin.RbacV1().Roles(ns).Create(ctx, &r, metav1.CreateOptions{}); err != nil {
			t.Fatalf("the API server refused deploy/rbac.yaml's Role: %v", err)
		}
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "dbrig-runner-" + user, Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "dbrig-runner"},
		Subjects:   []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: user}},
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// realFaults: pod-delete deletes a real pod; scale patches a real
// StatefulSet (its Heal needs a controller, so only Inject is checked).
func realFaults(t *testing.T, ctx context.Context, c kubernetes.Interface) {
	const ns = "dbrig-faults"
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Pods need their namespace's default ServiceAccount (no controller makes it here).
	if _, err := c.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	l := map[string]string{"app": "db"}
	for _, n := range []string{"db-0", "db-1"} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: l}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "example/db"}}}}
		if _, err := c.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := kube.New("pod-delete", kube.Options{Target: kube.Target{Namespace: ns, StatefulSet: "db", Ordinal: 1}}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Inject(ctx, inject.Target{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		// Unscheduled pods go at once with grace 0.
		_, err := c.CoreV1().Pods(ns).Get(ctx, "db-1", metav1.GetOptions{})
		if err != nil || time.Now().After(deadline) {
			if err == nil {
				t.Errorf("pod db-1 still there after pod-delete")
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := c.CoreV1().Pods(ns).Get(ctx, "db-0", metav1.GetOptions{}); err != nil {
		t.Errorf("pod db-0 was not the target but is gone: %v", err)
	}

	two := int32(2)
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Spec: appsv1.StatefulSetSpec{
		Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: l},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: l}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "example/db"}}}},
	}}
	if _, err := c.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err = kube.New("scale", kube.Options{Target: kube.Target{Namespace: ns, StatefulSet: "db"}, Replicas: 5}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Inject(ctx, inject.Target{}); err != nil {
		t.Fatal(err)
	}
	got, err := c.AppsV1().StatefulSets(ns).Get(ctx, "db", metav1.GetOptions{})
	if err != nil || *got.Spec.Replicas != 5 {
		t.Errorf("after scale: %v, replicas %v", err, got.Spec.Replicas)
	}
}

// TestRealAPIServerCLIInterrupt runs the dbrig binary's `k8s run` against the
// real API server through a kubeconfig, as a user would, and interrupts it
// (SIGINT) once its Jobs exist: everything it created is deleted (the Jobs
// marked, since no garbage collector runs here) and it exits non-zero.
func TestRealAPIServerCLIInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver, builds dbrig")
	}
	s := startAPIServer(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "dbrig")
	build := exec.Command("go", "build", "-o", bin, "./cmd/dbrig")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: %q}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: cli}}]
current-context: x
`, s.host, adminToken)), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := s.client(t, adminToken)
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cli"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "k8s", "run", "--driver", "null", "-p", "recordcount=100", "--clients", "2", "--duration", "5s", "--workers", "2",
		"--image", "dbrig:test", "--store", "postgres://u:pw@results.example/db", "--kubeconfig", kubeconfig, "--run-id", "cli1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	for {
		if _, err := admin.BatchV1().Jobs("cli").Get(ctx, "dbrig-cli1-workers", metav1.GetOptions{}); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("dbrig k8s run exited before creating its Jobs: %v\n%s", err, out.String())
		case <-ctx.Done():
			t.Fatalf("no Jobs:\n%s", out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err == nil {
			t.Errorf("exit 0 after an interrupt")
		}
	case <-ctx.Done():
		t.Fatalf("dbrig k8s run did not stop after SIGINT:\n%s", out.String())
	}
	if strings.Contains(out.String(), "pw@") {
		t.Errorf("the store's password was printed:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "deleted 5 objects of run cli1") || !strings.Contains(out.String(), "interrupted") {
		t.Errorf("output:\n%s", out.String())
	}
	sel := metav1.ListOptions{LabelSelector: Selector("cli1")}
	jobs, _ := admin.BatchV1().Jobs("cli").List(ctx, sel)
	for _, j := range jobs.Items {
		if j.DeletionTimestamp == nil {
			t.Errorf("job %s not deleted", j.Name)
		}
	}
	svcs, _ := admin.CoreV1().Services("cli").List(ctx, sel)
	cms, _ := admin.CoreV1().ConfigMaps("cli").List(ctx, sel)
	secs, _ := admin.CoreV1().Secrets("cli").List(ctx, sel)
	if n := len(svcs.Items) + len(cms.Items) + len(secs.Items); n != 0 {
		t.Errorf("%d services, configmaps or secrets left after the interrupt", n)
	}
}

package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/k8s"
)

func TestK8sManifestsFlags(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "mine.properties")
	writeFile(t, props, "recordcount=500\noperationcount=0\n")
	args := []string{"k8s", "manifests", "-P", props, "--driver", "null", "--workers", "3", "--image", "reg/dbrig:1",
		"--namespace", "bench", "--rate", "300", "--duration", "10s", "--node-selector", "pool=load"}
	code, out, errOut := dbrig(t, context.Background(), args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code2, out2, _ := dbrig(t, context.Background(), args...)
	if code2 != 0 || out2 != out {
		t.Errorf("two calls print different manifests")
	}
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 4 {
		t.Fatalf("%d documents, want 4 (configmap, service, two jobs):\n%s", len(docs), out)
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal([]byte(docs[0]), &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Data["mine.properties"] != "recordcount=500\noperationcount=0\n" {
		t.Errorf("the local -P file is not in the ConfigMap: %v", cm.Data)
	}
	for _, want := range []string{
		"- " + k8s.ExperimentDir + "/mine.properties", // the -P path as the pod sees it
		"--driver=null", "--rate=300", "--workers\n        - \"3\"", "--spawn=false", "completionMode: Indexed", "pool: load",
		"create secret generic dbrig-",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("manifests lack %q:\n%s", want, out)
		}
	}
	for _, own := range []string{"--image", "--namespace", "--node-selector", "- " + props} {
		if strings.Contains(out, own) {
			t.Errorf("dbrig k8s's own flag or local path %q reached the coordinator:\n%s", own, out)
		}
	}
}

func TestK8sManifestsFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "exp.yaml")
	writeFile(t, file, "name: k\nsystem:\n  driver: null\ndataset:\n  records: 100\nworkload:\n  files: [workloada]\nload:\n  clients: 2\n  duration: 5s\n")
	code, out, errOut := dbrig(t, context.Background(), "k8s", "manifests", file, "--workers", "2", "--image", "reg/dbrig:1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "- bench\n        - "+k8s.ExperimentDir+"/exp.yaml") || !strings.Contains(out, "exp.yaml: |") {
		t.Errorf("the coordinator does not bench the mounted file:\n%s", out)
	}
}

// manifests --tls: the pods get the TLS flags and mounts, the comment says
// which keys the Secret needs, and --tls does not reach the coordinator.
func TestK8sManifestsTLS(t *testing.T) {
	code, out, errOut := dbrig(t, context.Background(), "k8s", "manifests", "--driver", "null", "-p", "recordcount=100",
		"--clients", "2", "--workers", "2", "--namespace", "bench", "--tls")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"--tls-cert", "--tls-key", "--tls-ca", "https://dbrig-", "scheme: HTTPS",
		"--from-file=" + k8s.SecretTLSKeyKey + "=key.pem", "secretName: dbrig-"} {
		if !strings.Contains(out, want) {
			t.Errorf("manifests --tls lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "- --tls\n") || strings.Contains(out, "--tls=true") || strings.Contains(out, "PRIVATE KEY") {
		t.Errorf("--tls reached the coordinator's args, or a key was printed:\n%s", out)
	}
}

func TestK8sBadInput(t *testing.T) {
	dir := t.TempDir()
	clusterFile := filepath.Join(dir, "c.yaml")
	writeFile(t, clusterFile, "name: c\nsystem:\n  driver: etcd\n  cluster:\n    recipe: etcd\n    nodes: 1\ndataset:\n  records: 100\nworkload:\n  files: [workloada]\nload:\n  duration: 5s\n")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no subcommand", []string{"k8s"}, 2, "expected manifests or run"},
		{"no workers", []string{"k8s", "manifests", "--driver", "null"}, 2, "--workers N is required"},
		{"workers > records", []string{"k8s", "manifests", "--driver", "null", "-p", "recordcount=3", "--workers", "4"}, 2, "--workers 4: the load phase inserts 3 records"},
		{"workers > clients", []string{"k8s", "manifests", "--driver", "null", "-p", "recordcount=30", "--clients", "2", "--workers", "4"}, 2, "the closed model has 2 clients"},
		{"listen is dbrig k8s's", []string{"k8s", "manifests", "--driver", "null", "--workers", "1", "--listen", ":9"}, 2, "--listen and --spawn are set by dbrig k8s"},
		{"tls files are dbrig k8s's", []string{"k8s", "manifests", "--driver", "null", "--workers", "1", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, 2, "give --tls"},
		{"unknown property", []string{"k8s", "manifests", "--driver", "null", "-p", "nul.typo=1", "--workers", "1"}, 2, "nul.typo"},
		{"store printed", []string{"k8s", "manifests", "--driver", "null", "--workers", "1", "--store", "postgres://u:pw@h/db"}, 2, "would print"},
		{"run needs postgres", []string{"k8s", "run", "--driver", "null", "--workers", "1"}, 2, "--store postgres://"},
		{"hdrlog", []string{"k8s", "manifests", "--driver", "null", "--workers", "1", "--hdrlog", "x.hlog"}, 2, "--hdrlog"},
		{"bad toleration", []string{"k8s", "manifests", "--driver", "null", "--workers", "1", "--toleration", "k=v:Sometimes"}, 2, "effect"},
		{"bad resources", []string{"k8s", "manifests", "--driver", "null", "--workers", "1", "--worker-resources", "cpu=many"}, 2, "--worker-resources"},
		{"bad namespace", []string{"k8s", "manifests", "--driver", "null", "--workers", "1", "--namespace", "Not_OK"}, 2, "namespace"},
		{"local cluster", []string{"k8s", "manifests", clusterFile, "--workers", "1"}, 2, "cannot run in pods"},
		{"two files", []string{"k8s", "manifests", "a.yaml", "b.yaml", "--workers", "1"}, 2, "at most one experiment file"},
		{"unreachable", []string{"k8s", "run", "--driver", "null", "--workers", "1", "--store", "postgres://u:pw@h/db", "--kubeconfig", filepath.Join(dir, "none")}, 2, "kubeconfig"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := dbrig(t, context.Background(), c.args...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, c.code, errOut, c.want)
			}
			if strings.Contains(out+errOut, "pw@") {
				t.Errorf("the store's password was printed: %s%s", out, errOut)
			}
		})
	}
}

// TestK8sRunPreflight: a missing namespace or missing RBAC is bad input
// (exit 2) found before anything is created.
func TestK8sRunPreflight(t *testing.T) {
	spec := func() *k8s.Spec {
		return &k8s.Spec{Namespace: "bench", Image: "i", Workers: 1, Command: []string{"run"}, Store: "postgres://h/db"}
	}
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &bytes.Buffer{}}

	c := fake.NewClientset()
	err := k8sRun(context.Background(), e, c, spec())
	if !errors.Is(err, k8s.ErrNoNamespace) || !experiment.IsInput(err) || exitCode(io.Discard, err) != 2 {
		t.Errorf("missing namespace: %v, want an input error wrapping ErrNoNamespace", err)
	}
	c = fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}})
	c.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, a.(k8stesting.CreateAction).GetObject(), nil // Status.Allowed false: denied
	})
	err = k8sRun(context.Background(), e, c, spec())
	var re *k8s.RBACError
	if !errors.As(err, &re) || exitCode(io.Discard, err) != 2 {
		t.Errorf("no RBAC: %v, want an RBACError, exit 2", err)
	}
	for _, a := range c.Actions() {
		if a.GetVerb() == "create" && a.GetResource().Resource != "selfsubjectaccessreviews" {
			t.Errorf("created %s before the checks passed", a.GetResource().Resource)
		}
	}
}

// TestK8sSecretProperty: a secret driver property never reaches the pod
// spec or the printed manifests: the coordinator reads it from the Secret.
func TestK8sSecretProperty(t *testing.T) {
	code, out, errOut := dbrig(t, context.Background(), "k8s", "manifests", "--driver", "redis", "-p", "redis.addr=r:6379",
		"-p", "redis.password=hunter2", "-p", "recordcount=10", "--clients", "2", "--duration", "5s", "--workers", "2", "--image", "i")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "hunter2") {
		t.Fatalf("the password was printed:\n%s", out)
	}
	for _, want := range []string{"redis.password=$(DBRIG_PROP_REDIS_PASSWORD)", "name: DBRIG_PROP_REDIS_PASSWORD", "key: prop.redis.password", "--from-literal=prop.redis.password="} {
		if !strings.Contains(out, want) {
			t.Errorf("manifests lack %q:\n%s", want, out)
		}
	}
	// run: the value goes into the Secret it creates.
	kf, rf, file, err := parseK8sFlags(&env{stderr: io.Discard}, "run", []string{"--driver", "redis", "-p", "redis.password=hunter2", "-p", "recordcount=10", "--clients", "2", "--duration", "5s", "--workers", "2", "--store", "postgres://h/db"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := k8sSpec(kf, rf, file, []string{"--driver", "redis", "-p", "redis.password=hunter2", "-p", "recordcount=10", "--clients", "2", "--duration", "5s", "--workers", "2", "--store", "postgres://h/db"})
	if err != nil {
		t.Fatal(err)
	}
	s.Namespace, s.RunID, s.Token = "ns", "x", "t"
	objs, err := k8s.Build(*s)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(objs.Secret.Data["prop.redis.password"]); got != "hunter2" {
		t.Errorf("secret prop.redis.password = %q", got)
	}
	if strings.Contains(strings.Join(objs.Coordinator.Spec.Template.Spec.Containers[0].Args, " "), "hunter2") {
		t.Errorf("the password is on the coordinator's command line")
	}
}

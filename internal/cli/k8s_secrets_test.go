package cli

import (
	"context"
	"encoding/base64"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dbrig/dbrig/k8s"
	"github.com/dbrig/dbrig/spec"
)

// leaks reports where secret shows in text: plain, or inside anything that
// decodes as base64 (standard or URL alphabet).
func leaks(text, secret string) []string {
	var where []string
	if strings.Contains(text, secret) {
		where = append(where, "plain")
	}
	for _, tok := range regexp.MustCompile(`[A-Za-z0-9+/_=-]{8,}`).FindAllString(text, -1) {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(tok); err == nil && strings.Contains(string(b), secret) {
				where = append(where, "base64 "+tok)
			}
		}
	}
	return where
}

const secretFile = `name: k
system:
  driver: redis
  props:
    redis.addr: r:6379
    redis.password: hunter2-in-file
dataset:
  records: 100
workload:
  files: [workloada]
load:
  clients: 2
  duration: 5s
`

// TestK8sManifestsFileSecrets: a secret property of an experiment file
// (redis.password) is not in what dbrig k8s manifests prints, in any form;
// the coordinator gets it from the Secret's environment through --set, and
// the file it benches, with that --set, reads as the original.
func TestK8sManifestsFileSecrets(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "exp.yaml")
	writeFile(t, file, secretFile)
	code, out, errOut := dbrig(t, context.Background(), "k8s", "manifests", file, "--workers", "2", "--image", "reg/dbrig:1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if l := leaks(out+errOut, "hunter2-in-file"); len(l) > 0 {
		t.Fatalf("the password shows in the manifests (%v):\n%s", l, out)
	}
	for _, want := range []string{"--set=system.props.redis.password=$(DBRIG_PROP_REDIS_PASSWORD)", "name: DBRIG_PROP_REDIS_PASSWORD",
		"key: prop.redis.password", "--from-literal=prop.redis.password=", "redis.addr: r:6379"} {
		if !strings.Contains(out, want) {
			t.Errorf("manifests lack %q:\n%s", want, out)
		}
	}

	// run: the value goes into the Secret it creates, nowhere else.
	args := []string{file, "--workers", "2", "--store", "postgres://u:storepw-123@h/db"}
	kf, rf, f, err := parseK8sFlags(&env{stderr: io.Discard}, "run", args)
	if err != nil {
		t.Fatal(err)
	}
	s, err := k8sSpec(kf, rf, f, args)
	if err != nil {
		t.Fatal(err)
	}
	s.Namespace, s.RunID, s.Token = "ns", "x", "t"
	objs, err := k8s.Build(*s)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(objs.Secret.Data[k8s.SecretPropKey("redis.password")]); got != "hunter2-in-file" {
		t.Errorf("Secret's %s = %q", k8s.SecretPropKey("redis.password"), got)
	}
	for _, o := range []runtime.Object{objs.ConfigMap, objs.Coordinator, objs.Workers, objs.Service} {
		var b strings.Builder
		if err := k8s.WriteYAML(&b, []runtime.Object{o}); err != nil {
			t.Fatal(err)
		}
		y := b.String()
		for _, secret := range []string{"hunter2-in-file", "storepw-123"} {
			if l := leaks(y, secret); len(l) > 0 {
				t.Errorf("%s shows outside the Secret (%v):\n%s", secret, l, y)
			}
		}
	}
	// The coordinator's file with its --set is the user's experiment.
	clean := objs.ConfigMap.Data["exp.yaml"]
	var sets []string
	for _, a := range objs.Coordinator.Spec.Template.Spec.Containers[0].Args {
		if v, ok := strings.CutPrefix(a, "--set="); ok {
			sets = append(sets, strings.Replace(v, "$(DBRIG_PROP_REDIS_PASSWORD)", "hunter2-in-file", 1))
		}
	}
	got, err := spec.ParseExperiment("exp.yaml", []byte(clean), sets)
	if err != nil {
		t.Fatal(err)
	}
	if p := got[0].System.Props; p["redis.password"] != "hunter2-in-file" || p["redis.addr"] != "r:6379" {
		t.Errorf("the coordinator's experiment has props %v", p)
	}
}

// TestK8sFileSecretElsewhere: a secret value also written outside
// system.props (here a matrix) is refused rather than put in the ConfigMap.
func TestK8sFileSecretElsewhere(t *testing.T) {
	file := filepath.Join(t.TempDir(), "exp.yaml")
	writeFile(t, file, secretFile+"tags: [hunter2-in-file]\n")
	code, out, errOut := dbrig(t, context.Background(), "k8s", "manifests", file, "--workers", "2", "--image", "i")
	if code != 2 || !strings.Contains(errOut, "redis.password is also written elsewhere") || strings.Contains(out, "hunter2") {
		t.Errorf("exit %d, stderr %q, stdout %q", code, errOut, out)
	}
}

// TestK8sRefusesKubeFaults: a scenario with Kubernetes faults is for dbrig
// bench; the pods of dbrig k8s run have no API access.
func TestK8sRefusesKubeFaults(t *testing.T) {
	file := filepath.Join(t.TempDir(), "exp.yaml")
	writeFile(t, file, "name: k\nsystem: {driver: null}\nworkload: {files: [workloada]}\nload: {clients: 2, duration: 5s}\n"+
		"kubernetes: {namespace: db}\nscenario:\n  - {fault: pod-delete, target: pod/db-0, at: 1s}\n")
	code, _, errOut := dbrig(t, context.Background(), "k8s", "manifests", file, "--workers", "2", "--image", "i")
	if code != 2 || !strings.Contains(errOut, "faults on Kubernetes targets are fired by dbrig bench") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestK8sPropFileSecret: a -P file that sets a secret property is refused
// (it would go into the ConfigMap as written), naming the -p to use.
func TestK8sPropFileSecret(t *testing.T) {
	file := filepath.Join(t.TempDir(), "my.properties")
	writeFile(t, file, "recordcount=10\nredis.password=hunter2-in-props\n")
	code, out, errOut := dbrig(t, context.Background(), "k8s", "manifests", "--driver", "redis", "-P", file, "-p", "redis.addr=r:6379",
		"--clients", "2", "--duration", "5s", "--workers", "2", "--image", "i")
	if code != 2 || !strings.Contains(errOut, "sets the secret property redis.password") || strings.Contains(out+errOut, "hunter2") {
		t.Errorf("exit %d, stderr %q, stdout %q", code, errOut, out)
	}
}

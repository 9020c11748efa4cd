package k8s

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecretPropArg(t *testing.T) {
	secret := map[string]bool{"redis.password": true}
	secrets := map[string]string{}
	if got := SecretPropArg("recordcount=10", secret, secrets); got != "recordcount=10" {
		t.Errorf("a plain property became %q", got)
	}
	got := SecretPropArg(" redis.password =hunter2", secret, secrets)
	if strings.Contains(got, "hunter2") || got != "redis.password=$("+SecretPropEnv("redis.password")+")" {
		t.Errorf("secret property argument %q", got)
	}
	if secrets["redis.password"] != "hunter2" {
		t.Errorf("secrets %v: want the value kept for the Secret", secrets)
	}
}

func TestPropFileArg(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a", "w.properties")
	b := filepath.Join(dir, "b", "w.properties")
	for path, text := range map[string]string{a: "recordcount=10\n", b: "redis.password=x\n"} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string][]byte{}
	secret := map[string]bool{"redis.password": true}
	if got, err := PropFileArg("workloada", files, secret); err != nil || got != "workloada" || len(files) != 0 {
		t.Errorf("built-in workload: %q, %v, files %v", got, err, files)
	}
	if got, err := PropFileArg(a, files, secret); err != nil || got != ExperimentPath("w.properties") || string(files["w.properties"]) != "recordcount=10\n" {
		t.Errorf("local file: %q, %v, files %v", got, err, files)
	}
	_, err := PropFileArg(b, files, secret)
	if err == nil || !strings.Contains(err.Error(), "secret property redis.password") || !strings.Contains(err.Error(), "also named w.properties") {
		t.Errorf("a second file of that name with a secret: %v", err)
	}
}

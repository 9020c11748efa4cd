package k8s

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func tlsSpec(store string) Spec {
	return Spec{
		Namespace: "bench", RunID: "tls", Image: "dbrig:test", Workers: 2, TLS: true,
		Command: []string{"run", "--driver", "null", "-p", "recordcount=200", "--clients", "4", "--duration", "2s", "--quiet"},
		Token:   "tls-token", Store: store, ConnectTimeout: 30 * time.Second,
	}
}

// Build with TLS: a fresh CA and a certificate for the coordinator's
// Service in the Secret (verified here), mounted where the pods' flags
// say, the coordinator probed over HTTPS, the workers on https://; a
// second Build makes another CA; YAML never prints the key.
func TestBuildTLS(t *testing.T) {
	s := tlsSpec("postgres://u:p@db/r")
	o, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	d := o.Secret.Data
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(d[SecretTLSCAKey]) {
		t.Fatal("no CA in the Secret")
	}
	block, _ := pem.Decode(d[SecretTLSCertKey])
	if block == nil {
		t.Fatal("no certificate in the Secret")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: CoordinatorHost(&s)}); err != nil {
		t.Errorf("the coordinator's certificate does not verify for %s: %v", CoordinatorHost(&s), err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: "evil.example"}); err == nil {
		t.Error("the certificate is valid for any name")
	}
	if !bytes.Contains(d[SecretTLSKeyKey], []byte("PRIVATE KEY")) {
		t.Error("no key in the Secret")
	}
	coord := o.Coordinator.Spec.Template.Spec.Containers[0]
	args := strings.Join(coord.Args, " ")
	if !strings.Contains(args, "--tls-cert "+TLSDir+"/"+SecretTLSCertKey) || !strings.Contains(args, "--tls-key "+TLSDir+"/"+SecretTLSKeyKey) {
		t.Errorf("coordinator args %q lack --tls-cert/--tls-key", args)
	}
	if coord.ReadinessProbe.HTTPGet.Scheme != corev1.URISchemeHTTPS {
		t.Errorf("readiness probe scheme %q, want HTTPS", coord.ReadinessProbe.HTTPGet.Scheme)
	}
	w := o.Workers.Spec.Template.Spec.Containers[0]
	wargs := strings.Join(w.Args, " ")
	if !strings.Contains(wargs, "--coordinator https://"+CoordinatorHost(&s)) || !strings.Contains(wargs, "--tls-ca "+TLSDir+"/"+SecretTLSCAKey) {
		t.Errorf("worker args %q: want https:// and --tls-ca", wargs)
	}
	// The workers mount the CA only, not the key.
	for _, v := range o.Workers.Spec.Template.Spec.Volumes {
		if v.Secret != nil {
			for _, it := range v.Secret.Items {
				if it.Key == SecretTLSKeyKey {
					t.Error("worker pods mount the coordinator's key")
				}
			}
		}
	}
	o2, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(o2.Secret.Data[SecretTLSCAKey], d[SecretTLSCAKey]) {
		t.Error("two builds share a CA: it must be fresh per run")
	}
	var buf bytes.Buffer
	if err := WriteYAML(&buf, o.List()); err == nil || bytes.Contains(buf.Bytes(), []byte("PRIVATE KEY")) {
		t.Errorf("WriteYAML printed the Secret (err %v)", err)
	}
}

// TestHandshakeTLS runs the coordinator and two workers as local
// processes with the pods' args, environment and mounted TLS files: they
// reach each other over TLS, and the results store holds no key material.
// The certificate is remade for localhost too (a process here cannot
// resolve the Service's name).
func TestHandshakeTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dbrig")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "dbrig")
	build := exec.Command("go", "build", "-o", bin, "./cmd/dbrig")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	port := freePort(t)
	store := filepath.Join(dir, "results.db")
	s := tlsSpec(store)
	o, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	pki, err := NewPKI([]string{CoordinatorHost(&s), "localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	o.Secret.Data[SecretTLSCAKey], o.Secret.Data[SecretTLSCertKey], o.Secret.Data[SecretTLSKeyKey] = pki.CA, pki.Cert, pki.Key
	tlsDir := filepath.Join(dir, "tls")
	if err := os.MkdirAll(tlsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{SecretTLSCAKey, SecretTLSCertKey, SecretTLSKeyKey} {
		if err := os.WriteFile(filepath.Join(tlsDir, k), o.Secret.Data[k], 0o400); err != nil {
			t.Fatal(err)
		}
	}
	mapArg := func(a string) string {
		switch {
		case a == fmt.Sprintf(":%d", Port):
			return fmt.Sprintf("127.0.0.1:%d", port)
		case strings.HasPrefix(a, "https://"):
			return fmt.Sprintf("https://localhost:%d", port)
		case strings.HasPrefix(a, TLSDir+"/"):
			return filepath.Join(tlsDir, strings.TrimPrefix(a, TLSDir+"/"))
		}
		return strings.ReplaceAll(a, "$(DBRIG_STORE)", store)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var procs []*exec.Cmd
	t.Cleanup(func() {
		for _, p := range procs {
			if p.Process != nil && p.ProcessState == nil {
				_ = syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
				_ = p.Wait()
			}
		}
	})
	var outs []*bytes.Buffer
	start := func(c corev1.Container, name string, env ...string) {
		p := podProcess(t, bin, o, c, mapArg, filepath.Join(dir, name))
		p.Env = append(p.Env, env...)
		var b bytes.Buffer
		p.Stdout, p.Stderr = &b, &b
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
		outs = append(outs, &b)
	}
	start(o.Coordinator.Spec.Template.Spec.Containers[0], "coord")
	for i := 0; i < s.Workers; i++ {
		start(o.Workers.Spec.Template.Spec.Containers[0], "w"+strconv.Itoa(i), "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
	}
	done := make(chan error, len(procs))
	for _, p := range procs {
		go func(p *exec.Cmd) { done <- p.Wait() }(p)
	}
	for range procs {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("a process failed: %v", err)
			}
		case <-ctx.Done():
			t.Fatalf("the coordinator and workers did not finish:\n%s", outs[0].String())
		}
	}
	if !regexp.MustCompile(`run \d+ stored`).MatchString(outs[0].String()) || !strings.Contains(outs[0].String(), "https://") {
		t.Errorf("the coordinator did not store a run over https://:\n%s", outs[0].String())
	}
	all := ""
	for _, b := range outs {
		all += b.String()
	}
	db, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(all, "PRIVATE KEY") || bytes.Contains(db, []byte("PRIVATE KEY")) || bytes.Contains(db, pki.Key[40:80]) {
		t.Error("key material was printed or stored")
	}
	if t.Failed() {
		for i, b := range outs {
			t.Logf("process %d:\n%s", i, b.String())
		}
	}
}

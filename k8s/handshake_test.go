package k8s

import (
	"bytes"
	"context"
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

// podProcess turns a container of the built objects into a local command:
// the same args and environment (Secret values resolved), with the pod's
// addresses and paths mapped to loopback and a temporary directory.
func podProcess(t *testing.T, bin string, o *Objects, c corev1.Container, mapArg func(string) string, work string) *exec.Cmd {
	t.Helper()
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = mapArg(a)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for _, e := range c.Env {
		v := e.Value
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			v = string(o.Secret.Data[e.ValueFrom.SecretKeyRef.Key])
		}
		if v == workDir {
			v = work
		}
		cmd.Env = append(cmd.Env, e.Name+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// TestHandshakeWithPodEnvironment runs the coordinator and the workers as
// local processes with exactly the args and environment the pods get (the
// token from the Secret, JOB_COMPLETION_INDEX as an Indexed Job sets it),
// against the null driver. It needs `dbrig worker` (slice workers12) and
// skips, saying so, in a tree that lacks it.
func TestHandshakeWithPodEnvironment(t *testing.T) {
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
	if out, _ := exec.Command(bin, "worker", "-h").CombinedOutput(); strings.Contains(string(out), "unknown command") {
		t.Skip("this tree has no `dbrig worker` yet (slice workers12): run this test after the merge")
	}
	port := freePort(t)
	store := filepath.Join(dir, "results.db")
	s := Spec{
		Namespace: "bench", RunID: "hs", Image: "dbrig:test", Workers: 2,
		Command: []string{"run", "--driver", "null", "-p", "recordcount=200", "--clients", "4", "--duration", "2s", "--quiet"},
		Token:   "handshake-token", Store: store, ConnectTimeout: 30 * time.Second,
	}
	o, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	local := fmt.Sprintf("127.0.0.1:%d", port)
	mapArg := func(a string) string {
		switch a {
		case fmt.Sprintf(":%d", Port):
			return local
		case CoordinatorURL(&s):
			return "http://" + local
		}
		return a
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
	coord := podProcess(t, bin, o, o.Coordinator.Spec.Template.Spec.Containers[0], mapArg, filepath.Join(dir, "coord"))
	var coordOut bytes.Buffer
	coord.Stdout, coord.Stderr = &coordOut, &coordOut
	if strings.Contains(strings.Join(coord.Args, " "), "handshake-token") {
		t.Fatalf("the token is on the coordinator's command line")
	}
	// Kubernetes expands $(DBRIG_STORE) from the env; do the same.
	for i, a := range coord.Args {
		coord.Args[i] = strings.ReplaceAll(a, "$(DBRIG_STORE)", store)
	}
	if err := coord.Start(); err != nil {
		t.Fatal(err)
	}
	procs = append(procs, coord)
	var workerOut []*bytes.Buffer
	for i := 0; i < s.Workers; i++ {
		w := podProcess(t, bin, o, o.Workers.Spec.Template.Spec.Containers[0], mapArg, filepath.Join(dir, "w"+strconv.Itoa(i)))
		w.Env = append(w.Env, "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
		var b bytes.Buffer
		w.Stdout, w.Stderr = &b, &b
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, w)
		workerOut = append(workerOut, &b)
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
			t.Fatalf("the coordinator and workers did not finish:\n%s", coordOut.String())
		}
	}
	if !regexp.MustCompile(`run \d+ stored`).MatchString(coordOut.String()) {
		t.Errorf("the coordinator did not store a run:\n%s", coordOut.String())
	}
	if t.Failed() {
		for i, b := range workerOut {
			t.Logf("worker %d:\n%s", i, b.String())
		}
	}
}

package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func needEtcd(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("etcd"); err != nil {
		t.Skip("SKIPPED: no etcd")
	}
}

// cluster up on a node directory holding the user's files: exit 2, the
// files stay.
func TestClusterUpForeignDir(t *testing.T) {
	needEtcd(t)
	d := t.TempDir()
	thesis := filepath.Join(d, "etcd1", "thesis.txt")
	os.MkdirAll(filepath.Dir(thesis), 0o755)
	writeFile(t, thesis, "mine\n")
	state := filepath.Join(d, "s.json")
	code, _, errOut := dbrig(t, context.Background(), "cluster", "up", "etcd", "--nodes", "1", "--dir", d, "--state", state)
	if code == 0 {
		dbrig(t, context.Background(), "cluster", "down", "--state", state)
	}
	if code != 2 || !strings.Contains(errOut, "not created by dbrig") {
		t.Errorf("exit %d, want 2 and why; stderr: %s", code, errOut)
	}
	if b, err := os.ReadFile(thesis); err != nil || string(b) != "mine\n" {
		t.Fatalf("user's file: %q, %v", b, err)
	}
}

// cluster up interrupted (its context ends) exits 130, like every other
// interrupted command.
func TestClusterUpInterrupted(t *testing.T) {
	needEtcd(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := t.TempDir()
	code, _, errOut := dbrig(t, ctx, "cluster", "up", "etcd", "--nodes", "1", "--state", filepath.Join(d, "s.json"))
	if code != 130 {
		t.Errorf("exit %d, want 130; stderr: %s", code, errOut)
	}
}

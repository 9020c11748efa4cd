package etcd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cluster/clustertest"
)

// A node directory holding the user's files is refused before anything
// starts, and nothing in it is touched.
func TestUpRefusesForeignNodeDir(t *testing.T) {
	if _, err := exec.LookPath("etcd"); err != nil {
		t.Skipf("SKIPPED: %v", err)
	}
	d := t.TempDir()
	thesis := filepath.Join(d, "etcd1", "thesis.txt")
	if err := os.MkdirAll(filepath.Dir(thesis), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(thesis, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Up(context.Background(), Cluster{Members: 1}, cluster.Options{Dir: d})
	if err == nil {
		c.Down(context.Background())
	}
	if !errors.Is(err, cluster.ErrNotOwned) {
		t.Errorf("Up on a foreign node dir: %v, want ErrNotOwned", err)
	}
	if b, err := os.ReadFile(thesis); err != nil || string(b) != "mine\n" {
		t.Fatalf("user's file after Up/Down: %q, %v", b, err)
	}
}

// Down removes the node dirs dbrig made in a given --dir, and leaves the
// user's files beside them; a relative --dir is made absolute.
func TestDownRemovesOnlyWhatItMade(t *testing.T) {
	d := t.TempDir()
	t.Chdir(d)
	notes := filepath.Join(d, "work", "notes.txt")
	os.MkdirAll(filepath.Dir(notes), 0o755)
	os.WriteFile(notes, []byte("keep"), 0o644)
	os.Mkdir(filepath.Join(d, "work", "etcd1"), 0o755) // empty: may be used
	c := clustertest.Up(t, Cluster{Members: 1}, cluster.Options{Dir: "work"})
	if !filepath.IsAbs(c.Dir()) || !filepath.IsAbs(c.Nodes()[0].DataDir) {
		t.Errorf("dirs not absolute: %s, %s", c.Dir(), c.Nodes()[0].DataDir)
	}
	if err := c.Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d, "work", "etcd1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("node dir left after Down: %v", err)
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("user's file beside the node dir: %v", err)
	}
}

package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A node directory holding the user's files is refused before anything
// starts, and nothing in it is touched.
func TestUpRefusesForeignNodeDir(t *testing.T) {
	if _, err := (&Layout{}).Binary("etcd", "", "", "etcd"); err != nil {
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
	c, err := Up(context.Background(), Etcd{Members: 1}, Options{Dir: d})
	if err == nil {
		c.Down(context.Background())
	}
	if !errors.Is(err, ErrNotOwned) {
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
	c := up(t, Etcd{Members: 1}, Options{Dir: "work"})
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

// A state file is input: one claiming own_dir on a directory dbrig did not
// make deletes nothing.
func TestStateDownForeignDir(t *testing.T) {
	for _, own := range []bool{true, false} {
		d := t.TempDir()
		thesis := filepath.Join(d, "thesis.txt")
		os.WriteFile(thesis, []byte("mine"), 0o644)
		s := State{System: "etcd", Dir: d, OwnDir: own, Nodes: []Node{{Name: "etcd1", DataDir: d}}}
		err := s.Down(context.Background(), "", 0)
		if !errors.Is(err, ErrNotOwned) {
			t.Errorf("own_dir=%v: Down: %v, want ErrNotOwned", own, err)
		}
		if _, err := os.Stat(thesis); err != nil {
			t.Fatalf("own_dir=%v: user's file deleted: %v", own, err)
		}
	}
}

// A temporary cluster dir whose dbrig was killed is swept; one whose
// process runs, or that was made detached, is kept.
func TestSweepDebris(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	mk := func(o owner) string {
		d, err := os.MkdirTemp("", "dbrig-etcd-")
		if err != nil {
			t.Fatal(err)
		}
		if err := writeMarker(d, o); err != nil {
			t.Fatal(err)
		}
		return d
	}
	me := self(false)
	dead := me
	dead.Start++ // this PID, another start time: the process that made it is gone
	detached := dead
	detached.Detached = true
	otherBoot := me
	otherBoot.Boot = "not-this-boot"
	otherNS := dead
	otherNS.PIDNS = "pid:[1]" // another container's: its PIDs cannot be checked here
	live, gone, kept, reboot := mk(me), mk(dead), mk(detached), mk(otherBoot)
	container := mk(otherNS)
	foreign, _ := os.MkdirTemp("", "dbrig-etcd-") // no marker
	removed := SweepDebris()
	for _, d := range []string{live, kept, foreign, container} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s swept: %v", d, err)
		}
	}
	for _, d := range []string{gone, reboot} {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s not swept (removed %v)", d, removed)
		}
	}
}

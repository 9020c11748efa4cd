package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

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

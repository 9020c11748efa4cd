package experiment

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Scratch space is per user: a directory another user made under the same
// name (root's, say) does not stop this one, and this user's is private.
func TestScratchPerUser(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	shared := filepath.Join(os.TempDir(), "dbrig-scratch")
	if err := os.Mkdir(shared, 0o500); err != nil { // as if another user made it
		t.Fatal(err)
	}
	dir, err := makeScratch("pebble")
	if err != nil {
		t.Fatalf("makeScratch: %v", err)
	}
	parent := filepath.Dir(dir)
	if want := "dbrig-scratch-" + strconv.Itoa(os.Geteuid()); filepath.Base(parent) != want {
		t.Errorf("scratch parent %s, want %s", parent, want)
	}
	st, err := os.Stat(parent)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 || int(st.Sys().(*syscall.Stat_t).Uid) != os.Geteuid() {
		t.Errorf("scratch parent mode %v uid %d", st.Mode(), st.Sys().(*syscall.Stat_t).Uid)
	}
}

package experiment

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// A scratch directory whose dbrig is gone (SIGKILL runs no cleanup) is
// removed by the next run; one whose process lives is kept.
func TestAbandonedScratchIsRemoved(t *testing.T) {
	parent := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no 'true' command:", err)
	}
	dead := filepath.Join(parent, strconv.Itoa(cmd.Process.Pid)+"-pebble-1")
	live := filepath.Join(parent, strconv.Itoa(os.Getpid())+"-pebble-2")
	other := filepath.Join(parent, "notours")
	for _, d := range []string{dead, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeAbandoned(parent)
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("scratch of a dead process kept: %v", err)
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
}

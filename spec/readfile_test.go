package spec

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An experiment file that is a FIFO or a device is refused before it is
// read: a FIFO would block dbrig, /dev/zero would fill its memory.
func TestExperimentFileNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "exp.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		for name, read := range map[string]func() error{
			"CountCombinations": func() error { _, err := CountCombinations(path, nil); return err },
			"ReadExperiment":    func() error { _, err := ReadExperiment(path, nil); return err },
		} {
			done := make(chan error, 1)
			go func() { done <- read() }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "regular file") {
					t.Errorf("%s(%s): %v, want a refusal", name, path, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s(%s) still reading after 5s", name, path)
			}
		}
	}
}

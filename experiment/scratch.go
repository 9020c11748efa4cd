package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/dbrig/dbrig/cluster"
)

// Scratch directories (an embedded store's data when no path is given) live
// under one parent per user, named after the PID of the dbrig that made
// them, so a later run can find and remove the ones a killed dbrig left
// behind: a SIGKILL runs no deferred cleanup, and a loaded Pebble store is
// tens of MB. Per user: one shared parent, made by whoever ran dbrig first
// (root, say), locked every other user out.
func scratchParent() string {
	return filepath.Join(os.TempDir(), "dbrig-scratch-"+strconv.Itoa(os.Geteuid()))
}

// makeScratch removes abandoned scratch directories, then makes a new one
// for this process. The parent must be this user's own private directory:
// in a shared temp dir another user could have made it first.
func makeScratch(driverName string) (string, error) {
	parent := scratchParent()
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", err
	}
	st, err := os.Lstat(parent)
	if err != nil {
		return "", err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !st.IsDir() || ok && int(sys.Uid) != os.Geteuid() {
		return "", fmt.Errorf("scratch directory %s: not a directory of this user; remove it", parent)
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(parent, 0o700); err != nil {
			return "", err
		}
	}
	removeAbandoned(parent)
	cluster.SweepDebris() // temporary cluster dirs of a killed dbrig
	return os.MkdirTemp(parent, fmt.Sprintf("%d-%s-", os.Getpid(), driverName))
}

// removeAbandoned removes the directories under parent whose owner process
// is gone. A directory whose PID runs again (reused by another process) is
// kept: wasting space beats deleting a live run's data.
func removeAbandoned(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		pidText, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || !e.IsDir() {
			continue
		}
		if processExists(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(parent, e.Name()))
	}
}

// processExists tells whether pid names a running process (Linux: /proc).
func processExists(pid int) bool {
	if _, err := os.Stat("/proc/self"); err != nil {
		return true // no /proc: never guess
	}
	_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
	return err == nil
}

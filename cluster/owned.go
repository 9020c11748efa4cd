package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/dbrig/dbrig/nodestat"
)

// ErrNotOwned is wrapped when dbrig would start a node on, or remove, a
// directory it did not create: a user's files are never adopted nor deleted.
var ErrNotOwned = errors.New("directory was not created by dbrig")

// ownMarker is the file dbrig writes into every directory it creates (or
// finds empty) for a cluster. Only a directory holding it is ever removed.
const ownMarker = ".dbrig-created"

// owner is the marker's content: which process made the directory, so that
// a later dbrig can tell debris of a killed process (SweepDebris) from a
// live cluster's data. Detached clusters outlive their creator on purpose
// and are never swept.
type owner struct {
	PID      int    `json:"pid"`
	Start    uint64 `json:"start_ticks"`
	Boot     string `json:"boot_id"`
	PIDNS    string `json:"pid_ns"` // a PID of another container's namespace means nothing here
	Detached bool   `json:"detached,omitempty"`
}

func pidNS() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return ns
}

func self(detached bool) owner {
	o := owner{PID: os.Getpid(), Boot: nodestat.BootID(), PIDNS: pidNS(), Detached: detached}
	if st, err := (nodestat.Proc{}).Stat(o.PID); err == nil {
		o.Start = st.StartTime
	}
	return o
}

// claimDir makes dir a directory dbrig may use and later remove: it is
// created, or found empty, and marked; or it carries dbrig's marker already
// (a restart on its own data). A non-empty directory without the marker is
// the user's: ErrNotOwned, and nothing in it is touched.
func claimDir(dir string, o owner, perm fs.FileMode) error {
	if owned(dir) {
		return nil
	}
	if err := checkClaimable(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return err
	}
	return writeMarker(dir, o)
}

// checkClaimable returns ErrNotOwned for an existing non-empty directory (or
// a file) without dbrig's marker; nil for a missing or empty directory.
func checkClaimable(dir string) error {
	if owned(dir) {
		return nil
	}
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("cluster: %s: %w (it is not a directory)", dir, ErrNotOwned)
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err == io.EOF {
		return nil
	}
	return fmt.Errorf("cluster: %s: %w and is not empty; give an empty or new directory (dbrig deletes what it creates at tear-down)", dir, ErrNotOwned)
}

func writeMarker(dir string, o owner) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ownMarker), append(b, '\n'), 0o644)
}

// owned tells whether dir is a directory (not a link) holding dbrig's marker.
func owned(dir string) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	m, err := os.Lstat(filepath.Join(dir, ownMarker))
	return err == nil && m.Mode().IsRegular()
}

// removeOwned removes dir and everything in it if dbrig created it; a
// missing dir is fine; a foreign one is left whole (ErrNotOwned).
func removeOwned(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if !owned(dir) {
		return fmt.Errorf("cluster: not removing %s: %w (no %s marker)", dir, ErrNotOwned, ownMarker)
	}
	return os.RemoveAll(dir)
}

func readMarker(dir string) (owner, error) {
	var o owner
	b, err := os.ReadFile(filepath.Join(dir, ownMarker))
	if err != nil {
		return o, err
	}
	return o, json.Unmarshal(b, &o)
}

// gone tells whether the marker's process no longer runs: another boot, or
// no process with its PID and start time. Unknown means not gone.
func (o owner) gone() bool {
	if o.PID <= 0 || o.Detached || o.Boot == "" || o.PIDNS == "" || o.PIDNS != pidNS() {
		return false
	}
	boot := nodestat.BootID()
	if boot == "" {
		return false
	}
	if boot != o.Boot {
		return true
	}
	st, err := (nodestat.Proc{}).Stat(o.PID)
	if err != nil {
		return errors.Is(err, nodestat.ErrGone)
	}
	return o.Start != 0 && st.StartTime != o.Start
}

// SweepDebris removes the temporary cluster directories (dbrig-<system>-*
// in the system temp dir, made when no --dir was given) that a dbrig killed
// before its tear-down left behind: only those holding dbrig's marker whose
// process is provably gone. It returns the directories removed.
func SweepDebris() []string {
	parent := os.TempDir()
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "dbrig-") {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		st, err := os.Lstat(dir)
		if err != nil || !ownedByMe(st) {
			continue
		}
		o, err := readMarker(dir)
		if err != nil || !o.gone() {
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// ownedByMe tells whether a directory belongs to this process's user (never
// sweep another user's files, even with a marker).
func ownedByMe(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Geteuid()
}

// makeDir sets the cluster's directory: dir made absolute (servers run with
// their own working directory: a relative path would be resolved there), or
// a new marked temporary directory that Down removes whole.
func (c *Cluster) makeDir(dir string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "dbrig-"+c.system+"-")
		if err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
		c.dir, c.ownDir = d, true
		if err := writeMarker(d, c.owner); err != nil {
			os.RemoveAll(d)
			return fmt.Errorf("cluster: %w", err)
		}
		return nil
	}
	abs, err := filepath.Abs(ExpandHome(dir))
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	c.dir = abs
	return nil
}

// checkNodeDirs refuses, before any node starts, a node data directory that
// holds files dbrig did not put there.
func checkNodeDirs(stages []Stage) error {
	for _, st := range stages {
		for _, ns := range st.Nodes {
			if ns.DataDir == "" {
				continue
			}
			if err := checkClaimable(ns.DataDir); err != nil {
				return fmt.Errorf("node %s: %w", ns.Name, err)
			}
		}
	}
	return nil
}

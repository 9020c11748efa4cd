package postgres

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cluster/clustertest"
)

// dsmFiles are the files of dynamic shared memory a process has mapped:
// /dev/shm/PostgreSQL.* (posix) or DATA/pg_dynshmem/* (mmap).
func dsmFiles(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		if p := f[5]; strings.HasPrefix(p, "/dev/shm/") || strings.Contains(p, "/pg_dynshmem/") {
			out = append(out, p)
		}
	}
	return out
}

// A killed server (SIGKILL to its process group: a kill fault, an OOM
// kill) does not remove its dynamic shared memory segments; in /dev/shm
// they would outlive the cluster. The recipe keeps them in the data
// directory, which Down removes.
func TestKilledServerLeavesNoSharedMemory(t *testing.T) {
	c := clustertest.Up(t, Cluster{}, cluster.Options{})
	n := c.Nodes()[0]
	files := dsmFiles(t, n.PID)
	if len(files) == 0 {
		t.Fatalf("postmaster %d maps no dynamic shared memory: nothing under test", n.PID)
	}
	t.Logf("mapped: %v", files)
	if err := syscall.Kill(-n.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	clustertest.AssertGone(t, []cluster.Node{n}, 10*time.Second)
	clustertest.Down(t, c)
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s outlived the killed server and its cluster", f)
			if strings.HasPrefix(f, "/dev/shm/PostgreSQL.") {
				os.Remove(f) // ours: the postmaster that mapped it is gone
			}
		}
	}
}

package results

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Host describes the machine that ran dbrig.
type Host struct {
	Hostname    string
	OS          string // e.g. "Debian GNU/Linux 12 (bookworm)", else GOOS
	Kernel      string // kernel release
	CPUModel    string
	Cores       int // logical CPUs dbrig may use
	MemoryBytes int64
}

// HostInfo describes this machine from /proc and /etc/os-release. It is best
// effort: what cannot be read stays empty, as a missing detail must not stop a
// benchmark.
func HostInfo() Host {
	h := hostInfo(os.DirFS("/"), runtime.GOOS)
	h.Hostname, _ = os.Hostname()
	h.Cores = runtime.NumCPU() // honours CPU affinity, unlike /proc/cpuinfo
	return h
}

// hostInfo reads the files of a Linux root file system.
func hostInfo(root fs.FS, goos string) Host {
	h := Host{OS: goos}
	if b, err := fs.ReadFile(root, "etc/os-release"); err == nil {
		if v := keyValue(b, "PRETTY_NAME", "="); v != "" {
			h.OS = strings.Trim(v, `"'`)
		}
	}
	if b, err := fs.ReadFile(root, "proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := fs.ReadFile(root, "proc/cpuinfo"); err == nil {
		h.CPUModel = keyValue(b, "model name", ":")
		if h.CPUModel == "" { // arm64 names no model; its "Hardware" or nothing
			h.CPUModel = keyValue(b, "Hardware", ":")
		}
		h.Cores = strings.Count(string(b), "\nprocessor") + boolInt(bytes.HasPrefix(b, []byte("processor")))
	}
	if b, err := fs.ReadFile(root, "proc/meminfo"); err == nil {
		// "MemTotal:       16314460 kB"
		if f := strings.Fields(keyValue(b, "MemTotal", ":")); len(f) == 2 && f[1] == "kB" {
			if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				h.MemoryBytes = kb * 1024
			}
		}
	}
	return h
}

// keyValue returns the trimmed value of the first line "key<sep>value".
func keyValue(b []byte, key, sep string) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), sep)
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

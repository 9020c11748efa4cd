// Package nodestat samples what processes did, from /proc: CPU time, memory,
// storage I/O, context switches and open files. It is Linux-only by nature;
// elsewhere every read fails with an error and a sampler reports targets gone.
package nodestat

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Stat is what dbrig needs from /proc/PID/stat.
type Stat struct {
	PID       int
	Comm      string
	State     byte   // R, S, D, Z, ...
	PPID      int    // parent
	PGID      int    // process group
	UTime     uint64 // user CPU, clock ticks
	STime     uint64 // system CPU, clock ticks
	CUTime    uint64 // user CPU of waited-for children, clock ticks
	CSTime    uint64 // system CPU of waited-for children, clock ticks
	StartTime uint64 // clock ticks after boot: with PID, names one process for good
	RSSPages  uint64 // resident set, pages
}

// ParseStat parses the text of /proc/PID/stat. The command name is in
// parentheses and may itself hold spaces and parentheses, so the fields are
// counted from the last ')'.
func ParseStat(b []byte) (Stat, error) {
	var s Stat
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return s, fmt.Errorf("nodestat: malformed stat %q", trunc(b))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:open])))
	if err != nil {
		return s, fmt.Errorf("nodestat: malformed stat pid: %w", err)
	}
	s.PID, s.Comm = pid, string(b[open+1:end])
	// f[0] is field 3 (state) of proc(5).
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 22 {
		return s, fmt.Errorf("nodestat: stat has %d fields after comm, want >= 22", len(f))
	}
	s.State = f[0][0]
	ints := []struct {
		field int // proc(5) numbering
		dst   any
	}{
		{4, &s.PPID}, {5, &s.PGID},
		{14, &s.UTime}, {15, &s.STime}, {16, &s.CUTime}, {17, &s.CSTime},
		{22, &s.StartTime}, {24, &s.RSSPages},
	}
	for _, x := range ints {
		v := f[x.field-3]
		switch d := x.dst.(type) {
		case *int:
			n, err := strconv.Atoi(v)
			if err != nil {
				return s, fmt.Errorf("nodestat: stat field %d: %w", x.field, err)
			}
			*d = n
		case *uint64:
			// cutime/cstime are signed in the kernel's format; never negative in practice.
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return s, fmt.Errorf("nodestat: stat field %d: %w", x.field, err)
			}
			if n < 0 {
				n = 0
			}
			*d = uint64(n)
		}
	}
	return s, nil
}

// IO is /proc/PID/io: bytes that went to or came from storage, and bytes
// passed through read/write calls (page cache, sockets and pipes too).
type IO struct {
	ReadBytes, WriteBytes uint64 // storage layer
	RChar, WChar          uint64 // read(2)/write(2) and friends
}

// ParseIO parses the text of /proc/PID/io.
func ParseIO(b []byte) (IO, error) {
	var io IO
	seen := 0
	err := keyValues(b, func(k, v string) error {
		var dst *uint64
		switch k {
		case "read_bytes":
			dst = &io.ReadBytes
		case "write_bytes":
			dst = &io.WriteBytes
		case "rchar":
			dst = &io.RChar
		case "wchar":
			dst = &io.WChar
		default:
			return nil
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("nodestat: io %s: %w", k, err)
		}
		*dst = n
		seen++
		return nil
	})
	if err == nil && seen == 0 {
		err = fmt.Errorf("nodestat: io: no known keys in %q", trunc(b))
	}
	return io, err
}

// Status is what dbrig reads from /proc/PID/status.
type Status struct {
	VoluntaryCtxt, InvoluntaryCtxt uint64
	RSSBytes                       uint64 // VmRSS; 0 for kernel threads and zombies
	Threads                        int
}

// ParseStatus parses the text of /proc/PID/status.
func ParseStatus(b []byte) (Status, error) {
	var s Status
	seen := 0
	err := keyValues(b, func(k, v string) error {
		switch k {
		case "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return fmt.Errorf("nodestat: status %s: %w", k, err)
			}
			if k[0] == 'v' {
				s.VoluntaryCtxt = n
			} else {
				s.InvoluntaryCtxt = n
			}
			seen++
		case "VmRSS":
			num, unit, _ := strings.Cut(v, " ")
			n, err := strconv.ParseUint(num, 10, 64)
			if err != nil {
				return fmt.Errorf("nodestat: status VmRSS: %w", err)
			}
			if strings.TrimSpace(unit) == "kB" {
				n *= 1024
			}
			s.RSSBytes = n
		case "Threads":
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("nodestat: status Threads: %w", err)
			}
			s.Threads = n
		}
		return nil
	})
	if err == nil && seen == 0 {
		err = fmt.Errorf("nodestat: status: no context switch counts in %q", trunc(b))
	}
	return s, err
}

// keyValues calls fn for each "key: value" line.
func keyValues(b []byte, fn func(k, v string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		if err := fn(strings.TrimSpace(k), strings.TrimSpace(v)); err != nil {
			return err
		}
	}
	return sc.Err()
}

func trunc(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// ErrGone says the process no longer exists (or is a zombie, which has
// exited but not been waited for).
var ErrGone = errors.New("nodestat: process is gone")

// Proc reads /proc for processes. Root is "/proc" unless set (tests point it
// at fixtures).
type Proc struct {
	Root string
}

func (p Proc) root() string {
	if p.Root == "" {
		return "/proc"
	}
	return p.Root
}

func (p Proc) read(pid int, name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(p.root(), strconv.Itoa(pid), name))
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return nil, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	return b, err
}

// Stat reads /proc/PID/stat; a zombie counts as gone.
func (p Proc) Stat(pid int) (Stat, error) {
	b, err := p.read(pid, "stat")
	if err != nil {
		return Stat{}, err
	}
	s, err := ParseStat(b)
	if err == nil && (s.State == 'Z' || s.State == 'X') {
		return s, fmt.Errorf("pid %d (zombie): %w", pid, ErrGone)
	}
	return s, err
}

// Status reads /proc/PID/status.
func (p Proc) Status(pid int) (Status, error) {
	b, err := p.read(pid, "status")
	if err != nil {
		return Status{}, err
	}
	return ParseStatus(b)
}

// IO reads /proc/PID/io. It needs the right to ptrace the process (same user
// or root); without it the error wraps os.ErrPermission.
func (p Proc) IO(pid int) (IO, error) {
	b, err := p.read(pid, "io")
	if err != nil {
		return IO{}, err
	}
	return ParseIO(b)
}

// FDs counts the open file descriptors in /proc/PID/fd (same rights as IO).
func (p Proc) FDs(pid int) (int, error) {
	d, err := os.Open(filepath.Join(p.root(), strconv.Itoa(pid), "fd"))
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	if err != nil {
		return 0, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	return len(names), err
}

// Tree lists pid and all its descendants, found by scanning /proc/*/stat
// for parent links. (A process group would not do: PostgreSQL makes every
// backend the leader of its own session.)
func (p Proc) Tree(pid int) ([]int, error) {
	children, err := p.children()
	if err != nil {
		return nil, err
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out, nil
}

func (p Proc) children() (map[int][]int, error) {
	ents, err := os.ReadDir(p.root())
	if err != nil {
		return nil, err
	}
	out := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := p.Stat(pid); err == nil {
			out[s.PPID] = append(out[s.PPID], pid)
		}
	}
	return out, nil
}

// Group lists the PIDs whose process group is pgid, found by scanning
// /proc/*/stat.
func (p Proc) Group(pgid int) ([]int, error) {
	ents, err := os.ReadDir(p.root())
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		s, err := p.Stat(pid)
		if err != nil {
			continue // gone meanwhile, or a zombie
		}
		if s.PGID == pgid {
			out = append(out, pid)
		}
	}
	return out, nil
}

// CtxSwitches sums voluntary and involuntary context switches over every
// thread of pid: /proc/PID/status counts the main thread only, and servers
// (etcd, Redis I/O threads) switch in their other threads.
func (p Proc) CtxSwitches(pid int) (vol, invol uint64, err error) {
	dir := filepath.Join(p.root(), strconv.Itoa(pid), "task")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		// No task directory (fixtures, very old kernels): the main thread.
		s, err := p.Status(pid)
		return s.VoluntaryCtxt, s.InvoluntaryCtxt, err
	}
	if err != nil {
		return 0, 0, err
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "status"))
		if err != nil {
			continue // the thread exited
		}
		s, err := ParseStatus(b)
		if err != nil {
			return 0, 0, err
		}
		vol += s.VoluntaryCtxt
		invol += s.InvoluntaryCtxt
	}
	return vol, invol, nil
}

// BootID is the kernel's random boot id (/proc/sys/kernel/random/boot_id):
// a PID recorded with it names the same process only within that boot. ""
// where there is none.
func BootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

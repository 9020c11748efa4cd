package cluster

import (
	"fmt"
	"os"
	"strings"
)

// BinaryMissingError says a server binary is not installed (or an override
// path does not exist), and how to install it.
type BinaryMissingError struct {
	System  string // "etcd"
	Binary  string // what was looked for: a name on $PATH or a path
	Install string // e.g. "apt-get install etcd-server"
	Given   bool   // Binary is a path the user gave (not a name looked up on $PATH)
	Err     error
}

func (e *BinaryMissingError) Error() string {
	msg := fmt.Sprintf("cluster: %s: binary %s not found", e.System, e.Binary)
	if e.Err != nil {
		msg += " (" + e.Err.Error() + ")"
	}
	switch {
	case e.Install != "" && e.Given:
		msg += "; make it with `" + e.Install + "`, or correct the path"
	case e.Install != "":
		msg += "; install it with `" + e.Install + "` or set the recipe's binary path"
	}
	return msg
}

func (e *BinaryMissingError) Unwrap() error { return e.Err }

// NotReadyError says a node did not become ready: it exited, its check kept
// failing until the stage's timeout, or a step before its start failed.
type NotReadyError struct {
	Node    string
	Stage   string
	Log     string   // path of the node's log
	LogTail []string // its last lines
	Exited  bool     // the process exited (ExitErr says how)
	Err     error    // the last readiness check's error, the exit, or the failed step
}

func (e *NotReadyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster: node %s (stage %s) not ready: %v", e.Node, e.Stage, e.Err)
	if e.Log != "" {
		fmt.Fprintf(&b, "\n--- last %d lines of %s ---", len(e.LogTail), e.Log)
		for _, l := range e.LogTail {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	}
	return b.String()
}

func (e *NotReadyError) Unwrap() error { return e.Err }

// tailLines returns the last n lines of the file at path (reading at most
// its last 64 KiB).
func tailLines(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return []string{"(no log: " + err.Error() + ")"}
	}
	defer f.Close()
	const max = 64 << 10
	var off int64
	if st, err := f.Stat(); err == nil && st.Size() > max {
		off = st.Size() - max
	}
	buf := make([]byte, max)
	k, _ := f.ReadAt(buf, off)
	lines := strings.Split(strings.TrimRight(string(buf[:k]), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:] // the first may be cut
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	return lines
}

// LogTail returns the last n lines of a node's log (from its last 64 KiB).
func LogTail(path string, n int) []string { return tailLines(path, n) }

// PortInUseError says a port given for a node (Options.Ports) cannot be
// had: another process listens on it, or another node of the cluster was
// given it too.
type PortInUseError struct {
	Node, Name string // "etcd1", "client"
	Port       int
	Err        error
}

func (e *PortInUseError) Error() string {
	return fmt.Sprintf("cluster: port %d given for %s.%s cannot be used: %v", e.Port, e.Node, e.Name, e.Err)
}

func (e *PortInUseError) Unwrap() error { return e.Err }

// UnknownPortError says Options.Ports names ports that no node of the
// cluster has.
type UnknownPortError struct {
	Keys  []string // the given "node.name" keys no node has
	Known []string // the ports the cluster's nodes do have
}

func (e *UnknownPortError) Error() string {
	return fmt.Sprintf("cluster: no node has port %s (this cluster's ports: %s)",
		strings.Join(e.Keys, ", "), strings.Join(e.Known, ", "))
}

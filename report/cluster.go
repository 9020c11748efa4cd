package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/spec"
)

// Nodes lists a cluster's nodes; with a state, whether each is alive.
func Nodes(w io.Writer, nodes []cluster.Node, aliveOf func(cluster.Node) bool) {
	for _, n := range nodes {
		status := ""
		if aliveOf != nil {
			status = "alive"
			if !aliveOf(n) {
				status = "DEAD "
			}
			status += "  "
		}
		fmt.Fprintf(w, "  %s%-10s %-8s pid %-7d %-21s log %s\n", status, n.Name, n.Role, n.PID, n.Addr, n.Log)
	}
}

// StartedNodes lists the nodes of a cluster an experiment just started.
func StartedNodes(w io.Writer, nodes []cluster.Node) {
	for _, n := range nodes {
		fmt.Fprintf(w, "node %-10s %-8s pid %-7d %s  log %s\n", n.Name, n.Role, n.PID, n.Addr, n.Log)
	}
}

// ClusterUsage prints how to run against a cluster dbrig cluster up started
// (driver drv, its properties props; secrets redacted) and stop it;
// stateFlag is the --state flag the commands need ("" for the default).
func ClusterUsage(w io.Writer, drv string, props map[string]string, stateFlag string) {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ps []string
	hidden := false
	for _, k := range keys {
		v := spec.RedactProp(k, props[k])
		hidden = hidden || v != props[k]
		ps = append(ps, "-p "+cluster.ShellWord(k+"="+v))
	}
	fmt.Fprintf(w, "\nrun against it:\n  dbrig run --driver %s %s -P workloada\n", drv, strings.Join(ps, " "))
	if hidden {
		fmt.Fprintf(w, "  (secrets are not shown: eval \"$(dbrig cluster env%s)\" exports every property as a DBRIG_… variable)\n", stateFlag)
	}
	fmt.Fprintf(w, "stop it:\n  dbrig cluster down%s\n", stateFlag)
}

package ycsb

import (
	"embed"
	"io/fs"
	"path"
	"sort"
)

// The built-in workload files: YCSB's core workloads A–F as YCSB defines
// them and an example custom mix, so that `-P workloada` works without a
// YCSB checkout.
//
//go:embed workloads/workload* workloads/custom
var builtin embed.FS

// Builtin returns the text of a built-in workload file by name: "workloada",
// or a path such as "workloads/workloada" (YCSB's own spelling) whose last
// element is one. Callers try a file on disk first.
func Builtin(name string) ([]byte, bool) {
	b, err := builtin.ReadFile("workloads/" + path.Base(name))
	return b, err == nil
}

// BuiltinNames lists the built-in workload files.
func BuiltinNames() []string {
	entries, _ := fs.ReadDir(builtin, "workloads")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

package timeseries

import (
	"embed"
	"io/fs"
	"path"
	"sort"
)

// The built-in property files: YCSB's tsworkloada and tsworkload_template
// as YCSB ships them, and the devops ingest workload.
//
//go:embed workloads/*
var builtin embed.FS

// Builtin returns a built-in property file by name ("tsworkloada", or a
// path such as "workloads/tsworkloada" whose last element is one).
func Builtin(name string) ([]byte, bool) {
	b, err := builtin.ReadFile("workloads/" + path.Base(name))
	return b, err == nil
}

// BuiltinNames lists the built-in property files.
func BuiltinNames() []string {
	entries, _ := fs.ReadDir(builtin, "workloads")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

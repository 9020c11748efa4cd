// Package workloads ships YCSB's core workload property files (A–F, as YCSB
// defines them) and example mixes, so that `-P workloada` works without a
// checkout; a path on disk always takes precedence.
package workloads

import (
	"embed"
	"io/fs"
	"sort"
)

//go:embed workload* custom
var files embed.FS

// Lookup returns the text of a built-in workload file by name (e.g. "workloada").
func Lookup(name string) ([]byte, bool) {
	b, err := files.ReadFile(name)
	return b, err == nil
}

// Names lists the built-in workload files.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var names []string
	for _, e := range entries {
		if !e.IsDir() && e.Name() != "embed.go" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

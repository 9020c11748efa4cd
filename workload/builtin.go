package workload

import (
	"io/fs"
	"path"
	"sort"
)

// Files are the built-in property files a workload package embeds in one
// directory, so that `-P NAME` works without a checkout of the benchmark
// that defines them.
type Files struct {
	FS  fs.FS
	Dir string // the directory of FS that holds them
}

// Get returns the text of a built-in file by name ("workloada"), or by a
// path whose last element is one ("workloads/workloada", YCSB's own
// spelling). Callers try a file on disk first.
func (f Files) Get(name string) ([]byte, bool) {
	b, err := fs.ReadFile(f.FS, path.Join(f.Dir, path.Base(name)))
	return b, err == nil
}

// Names lists the built-in files, sorted.
func (f Files) Names() []string {
	entries, _ := fs.ReadDir(f.FS, f.Dir)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

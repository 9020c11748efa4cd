package ycsb

import (
	"embed"

	"github.com/dbrig/dbrig/workload"
)

// The built-in workload files: YCSB's core workloads A–F as YCSB defines
// them and an example custom mix, so that `-P workloada` works without a
// YCSB checkout.
//
//go:embed workloads/workload* workloads/custom
var builtin embed.FS

var files = workload.Files{FS: builtin, Dir: "workloads"}

// Builtin returns the text of a built-in workload file by name: "workloada",
// or a path such as "workloads/workloada" (YCSB's own spelling) whose last
// element is one. Callers try a file on disk first.
func Builtin(name string) ([]byte, bool) { return files.Get(name) }

// BuiltinNames lists the built-in workload files.
func BuiltinNames() []string { return files.Names() }

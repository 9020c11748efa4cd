package timeseries

import (
	"embed"

	"github.com/dbrig/dbrig/workload"
)

// The built-in property files: YCSB's tsworkloada and tsworkload_template
// as YCSB ships them, and the devops ingest workload.
//
//go:embed workloads/*
var builtin embed.FS

var files = workload.Files{FS: builtin, Dir: "workloads"}

// Builtin returns a built-in property file by name ("tsworkloada", or a
// path such as "workloads/tsworkloada" whose last element is one).
func Builtin(name string) ([]byte, bool) { return files.Get(name) }

// BuiltinNames lists the built-in property files.
func BuiltinNames() []string { return files.Names() }

package archtest

// This file is the source of truth for which dbrig package may import
// which: docs/architecture.md's package map must agree with it, and the
// README's layout is generated from that map.

// layer is one rank of the module's packages.
type layer struct {
	name string
	// pkgs are package paths relative to the module root: "x" is the
	// package x, "x/..." is x and every package below it that has no
	// entry of its own (a family).
	pkgs []string
}

// layers ranks the module's packages, bottom first. A package may import
// packages of lower layers only, never one of its own layer or above,
// except that the members of one family ("x/...") may import each other:
// a driver its helpers, driver/all every driver, inject/kube inject (Go's
// ban on import cycles keeps a family a tree).
//
// To add a package, add its path to the lowest layer above everything it
// imports (or a new layer where none fits) and give it a row in the package
// map with that layer's name.
func layers() []layer {
	return []layer{
		{"concepts", []string{"loadmodel"}}, // what spec declares, run runs, results stores and format shows
		{"vocabulary", []string{"errclass", "spec", "format"}},
		{"leaves", []string{"cpuset", "outfile", "internal/testenv", "internal/archtest",
			"nodestat", "machine", "inject/...", "scripts/redis-clients"}},
		{"primitives", []string{"measure", "childproc", "k8s"}},
		{"clusters", []string{"cluster"}},
		{"cluster tests", []string{"cluster/clustertest"}}, // recipe tests in the systems' homes share it
		{"drivers", []string{"driver/..."}},
		{"workloads", []string{"workload/..."}},
		{"runs", []string{"run", "results", "sla", "workers/wire"}},
		{"analysis", []string{"analysis"}},
		{"gates", []string{"gate"}}, // dbrig check: baselines and thresholds on analysis's statistics
		{"scenarios", []string{"scenario"}},
		{"orchestration", []string{"experiment"}},
		{"rendering", []string{"report", "livemetrics"}}, // the commands' printers show plans and outcomes; live metrics publish them as they come
		{"dashboard", []string{"web/..."}},
		{"procedures", []string{"rating", "workers"}},
		{"commands", []string{"internal/cli"}},
		{"main", []string{"cmd/dbrig"}},
	}
}

// testHelpers are the packages written for tests: any _test.go file may
// import them, whatever its layer (besides what its package may import).
func testHelpers() []string {
	return []string{
		"internal/testenv",                // finds the real servers
		"driver/drivertest",               // the driver conformance suite
		"driver/internal/benchkit",        // driver benchmarks
		"driver/internal/sqltx/sqltxtest", // SQL transaction conformance
		"web/webtest",                     // builds stored runs for report and web tests
	}
}

// testException is one upward import a test file makes today. Each is an
// end-to-end test kept beside the package it is about; the list may only
// shrink (an entry no test needs any more fails the test).
type testException struct {
	pkg, imports, why string
}

func testExceptions() []testException {
	return []testException{
		{"internal/archtest", "driver/all", "systems_test.go reads the systems' names from the registry"},
		{"driver/redis", "experiment", "replica_test.go checks stale replica reads through experiment.StaleReads"},
		{"k8s", "experiment", "scenario_test.go runs a fault scenario on a real API server"},
		{"k8s", "results", "scenario_test.go reads the scenario's stored run"},
		{"workload/tpcc", "run", "TPC-C's tests load and run the workload through the runner"},
	}
}

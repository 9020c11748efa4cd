package experiment

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The shipped cross-system example resolves to one run per system and
// repetition, each with its own driver and local cluster, labelled and
// tagged by its system.
func TestResolveBenchAcrossSystems(t *testing.T) {
	for _, bin := range []string{"redis-server", "etcd"} {
		if _, err := exec.LookPath(bin); err != nil && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
			t.Skipf("SKIPPED: %s is not installed", bin)
		}
	}
	b, err := ResolveBench(filepath.Join("..", "examples", "redis-vs-etcd.yaml"), BenchOptions{Sets: []string{"repeat=1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Runs) != 2 {
		t.Fatalf("%d runs, want 2 (one per system)", len(b.Runs))
	}
	for i, want := range []struct {
		driver, label string
		nodes         int
	}{{"redis", "system=redis", 1}, {"etcd", "system=etcd", 3}} {
		r := b.Runs[i]
		p := r.Plan
		if p.Driver != want.driver || r.Label() != want.label {
			t.Errorf("run %d: driver %q label %q, want %q %q", i, p.Driver, r.Label(), want.driver, want.label)
		}
		if p.Cluster == nil || len(p.Cluster.Nodes) != want.nodes {
			t.Fatalf("run %d: cluster %+v, want %d nodes of its own", i, p.Cluster, want.nodes)
		}
		if !strings.Contains(strings.Join(p.Tags, ","), "system:"+want.driver) {
			t.Errorf("run %d: tags %v, want system:%s", i, p.Tags, want.driver)
		}
		_, _, hasTimeout := p.Props.Lookup("etcd.consistency")
		if hasTimeout != (want.driver == "etcd") {
			t.Errorf("run %d: etcd.consistency set %v: a system's props must stay with it", i, hasTimeout)
		}
	}
}

// A property of one system written where every system reads it is refused
// with where it belongs; a property of no driver stays a plain unknown.
func TestResolveBenchForeignProps(t *testing.T) {
	dir := t.TempDir()
	matrix := "matrix:\n  system:\n    - {driver: null}\n    - {driver: sim}\n"
	for _, tc := range []struct{ name, text, want string }{
		{"another driver's prop in workload.props", "workload: {files: [workloada], props: {sim.latency: 1ms}}\n" + matrix,
			`x.yaml:1:53: workload.props.sim.latency: "sim.latency" is a property of the sim driver, and this run's system is null: give it only in the props of the matrix.system value driven by sim`},
		{"another driver's prop in system.props", "system: {driver: null, props: {sim.latency: 1ms}}\nworkload: {files: [workloada]}\n",
			`x.yaml:1:45: system.props.sim.latency: "sim.latency" is a property of the sim driver, and this run's system is null: only a system driven by sim reads it`},
		{"a recipe its driver cannot drive", "workload: {files: [workloada]}\nmatrix:\n  system:\n    - {driver: null}\n    - {driver: etcd, cluster: {recipe: redis}}\n",
			`x.yaml:5:16: matrix.system[1].driver: "etcd" cannot drive a redis cluster (expected driver redis)`},
		{"another driver's prop in a value's props", "workload: {files: [workloada]}\nmatrix:\n  system:\n    - {driver: null, props: {sim.latency: 1ms}}\n    - {driver: sim}\n",
			`x.yaml:4:43: matrix.system[0].props.sim.latency: "sim.latency" is a property of the sim driver, and this run's system is null`},
		{"a typo", "workload: {files: [workloada], props: {readproprtion: 0.5}}\n" + matrix, `unknown property "readproprtion"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, "x.yaml")
			if err := os.WriteFile(f, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ResolveBench(f, BenchOptions{Store: filepath.Join(dir, "r.db")})
			if err == nil || !IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (input %v), want bad input mentioning %q", err, err != nil && IsInput(err), tc.want)
			}
		})
	}
}

package spec

import (
	"errors"
	"strings"
	"testing"
)

const crossSystems = `name: redis-vs-etcd
workload: {files: [workloada], props: {readproportion: 0.9}}
load: {clients: 4, duration: 10s}
matrix:
  system:
    - {driver: redis, cluster: {recipe: redis}}
    - {driver: etcd, cluster: {recipe: etcd, nodes: 3}, props: {etcd.timeout: 1s}}
`

// A matrix over systems: each value is a whole system block, labelled by
// its driver, and the file needs no system of its own.
func TestMatrixOverSystems(t *testing.T) {
	exps, err := ParseExperiment("x.yaml", []byte(crossSystems), []string{"duration=2s"})
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) != 2 {
		t.Fatalf("%d combinations, want 2", len(exps))
	}
	for i, want := range []struct {
		label, driver, recipe string
		nodes                 int
		props                 map[string]string
	}{
		{"redis", "redis", "redis", 0, nil},
		{"etcd", "etcd", "etcd", 3, map[string]string{"etcd.timeout": "1s"}},
	} {
		e := exps[i]
		if len(e.Matrix) != 1 || e.Matrix[0] != (MatrixPick{Key: "system", Value: want.label}) {
			t.Errorf("combination %d: matrix %v, want system=%s", i, e.Matrix, want.label)
		}
		if e.System.Driver != want.driver || e.System.Cluster == nil || e.System.Cluster.Recipe != want.recipe || e.System.Cluster.Nodes != want.nodes {
			t.Errorf("combination %d: system %+v cluster %+v", i, e.System, e.System.Cluster)
		}
		if len(e.System.Props) != len(want.props) || e.System.Props["etcd.timeout"] != want.props["etcd.timeout"] {
			t.Errorf("combination %d: props %v, want %v", i, e.System.Props, want.props)
		}
		if e.Load.Duration.String() != "2s" || e.Workload.Props["readproportion"] != "0.9" {
			t.Errorf("combination %d: duration %v, workload props %v", i, e.Load.Duration, e.Workload.Props)
		}
	}
	// A semantic check on a combination points into its matrix value.
	if got := exps[1].Errorf("system.cluster.nodes", "x").Error(); got != "x.yaml:7:53: matrix.system[1].cluster.nodes: x" {
		t.Errorf("Errorf = %q, want the position inside the second value", got)
	}
}

func TestMatrixOverSystemsLabels(t *testing.T) {
	for _, tc := range []struct {
		name, values string
		want         []string
	}{
		{"by driver", "{driver: redis}, {driver: etcd}", []string{"redis", "etcd"}},
		{"a shared driver: by recipe", "{driver: postgres, cluster: {recipe: postgres}}, {driver: postgres, cluster: {recipe: ferretdb-pg}}, {driver: etcd}",
			[]string{"postgres", "ferretdb-pg", "etcd"}},
		{"named", "{name: small, driver: etcd, cluster: {nodes: 1}}, {name: big, driver: etcd, cluster: {nodes: 5}}", []string{"small", "big"}},
		{"one named, one by driver", "{name: etcd-3, driver: etcd}, {driver: etcd}", []string{"etcd-3", "etcd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exps, err := ParseExperiment("x.yaml", []byte("workload: {files: [a]}\nmatrix: {system: ["+tc.values+"]}\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range exps {
				got = append(got, e.Matrix[0].Value)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("labels %v, want %v", got, tc.want)
			}
		})
	}
}

// --set below the system block applies to every system; --set of a whole
// system runs that one.
func TestMatrixOverSystemsSet(t *testing.T) {
	exps, err := ParseExperiment("x.yaml", []byte(crossSystems), []string{"system.cluster.keep=true", "system.props.x.y=1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exps {
		if !e.System.Cluster.Keep || e.System.Props["x.y"] != "1" {
			t.Errorf("%s: keep %v, props %v; want the --set values in every system", e.Matrix[0].Value, e.System.Cluster.Keep, e.System.Props)
		}
	}
	if exps[0].System.Props["etcd.timeout"] != "" || exps[1].System.Props["etcd.timeout"] != "1s" {
		t.Errorf("a value's own props leaked or were lost: %v / %v", exps[0].System.Props, exps[1].System.Props)
	}
	// Dotted property names under one map are distinct keys, not nested axes.
	exps, err = ParseExperiment("x.yaml", []byte("system: {driver: null}\nworkload: {files: [a]}\nmatrix:\n  workload.props.x: [1, 2]\n  workload.props.x.y: [3]\n"), nil)
	if err != nil || len(exps) != 2 || exps[1].Workload.Props["x"] != "2" || exps[1].Workload.Props["x.y"] != "3" {
		t.Errorf("props x and x.y as two axes: %d runs, %v", len(exps), err)
	}
	exps, err = ParseExperiment("x.yaml", []byte(crossSystems), []string{"system={driver: null}"})
	if err != nil || len(exps) != 1 || exps[0].System.Driver != "null" || len(exps[0].Matrix) != 0 {
		t.Errorf("--set system: %d runs, %v", len(exps), err)
	}
}

func TestMatrixOverSystemsErrors(t *testing.T) {
	w := "workload: {files: [a]}\n"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"a value not a block", w + "matrix:\n  system: [redis]\n", "x.yaml:3:12: matrix.system[0]: expected a system block such as {driver: redis"},
		{"a typo inside a value", w + "matrix:\n  system:\n    - {driver: redis}\n    - {driver: etcd, clustr: {nodes: 3}}\n", `x.yaml:5:22: matrix.system[1].clustr: unknown key (expected one of cluster, driver, name, props, version) (did you mean "cluster"?)`},
		{"a bad value inside a value", w + "matrix:\n  system:\n    - {driver: etcd, cluster: {nodes: 0}}\n", `x.yaml:4:39: matrix.system[0].cluster.nodes: expected an integer ≥ 1, got 0`},
		{"no driver", w + "matrix:\n  system:\n    - {cluster: {recipe: redis}}\n", "x.yaml:4:7: matrix.system[0]: missing driver"},
		{"two alike", w + "matrix:\n  system:\n    - {driver: etcd}\n    - {driver: etcd, cluster: {nodes: 3}}\n", `x.yaml:5:7: matrix.system[1]: labelled "etcd" like matrix.system[0]: give each a name`},
		{"two named alike", w + "matrix:\n  system:\n    - {name: a, driver: etcd}\n    - {name: a, driver: redis}\n", `x.yaml:5:7: matrix.system[1]: labelled "a" like matrix.system[0]`},
		{"an axis inside the system axis", w + "matrix:\n  system: [{driver: etcd}, {driver: redis}]\n  driver: [etcd]\n", "x.yaml:4:3: matrix.driver: overlaps the axis system"},
		{"a map axis under a key axis", w + "matrix:\n  workload.props: [{a: 1}]\n  workload.props.b: [2]\n", "x.yaml:4:3: matrix.workload.props.b: overlaps the axis workload.props"},
		{"an unknown axis lists the valid ones", w + "matrix:\n  sytem: [{driver: etcd}]\n", `x.yaml:3:3: matrix.sytem: not a key of an experiment file (did you mean "system"?); expected system (whole system blocks), a short name (arrival, binary, clients, `},
		{"an empty list", w + "matrix:\n  system: []\n", "x.yaml:3:11: matrix.system: expected a non-empty list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseExperiment("x.yaml", []byte(tc.text), nil)
			var fe *FileError
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &fe) {
				t.Fatalf("error = %v\nwant a FileError containing %q", err, tc.want)
			}
		})
	}
}

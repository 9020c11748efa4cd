package spec

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const sweep = `name: pebble-sweep
tags: [example, sweep]
seed: 42
system:
  driver: pebble
  props:
    pebble.cachemb: 64
dataset:
  records: 10000
workload:
  files: [workloada]
  props: {readproportion: 0.9, updateproportion: 0.1}
load:
  clients: 1
  duration: 30s
  warmup: 2s
matrix:
  clients: [1, 4, 16]
  workload.props.readproportion: [0.5, 0.9]
repeat: 2
scenario: []
`

func TestParseExperimentMatrix(t *testing.T) {
	exps, err := ParseExperiment("s.yaml", []byte(sweep), []string{"duration=5s"})
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) != 6 {
		t.Fatalf("%d combinations, want 3 × 2", len(exps))
	}
	var got []string
	for _, e := range exps {
		got = append(got, e.Matrix[0].Value+"/"+e.Matrix[1].Value)
		if e.Load.Clients == 0 || e.Workload.Props["readproportion"] != e.Matrix[1].Value || e.Load.Duration != 5*time.Second {
			t.Errorf("combination %v: clients %d, readproportion %q, duration %v", e.Matrix, e.Load.Clients, e.Workload.Props["readproportion"], e.Load.Duration)
		}
	}
	if strings.Join(got, " ") != "1/0.5 1/0.9 4/0.5 4/0.9 16/0.5 16/0.9" {
		t.Errorf("order %v, want the last axis fastest", got)
	}
	e := exps[5]
	if e.Name != "pebble-sweep" || e.Load.Seed != 42 || e.Repeat != 2 || e.System.Driver != "pebble" || e.System.Props["pebble.cachemb"] != "64" ||
		e.Dataset.Records != 10000 || !e.Dataset.Load || e.Load.Clients != 16 || e.Load.Warmup != 2*time.Second || e.System.Cluster != nil {
		t.Errorf("decoded %+v", e)
	}
	if p, ok := e.Position("load.warmup"); !ok || p.String() != "s.yaml:16:11" {
		t.Errorf("position of load.warmup = %v, want s.yaml:16:11", p)
	}
}

// --set on a matrix axis runs that one value.
func TestSetReplacesAnAxis(t *testing.T) {
	exps, err := ParseExperiment("s.yaml", []byte(sweep), []string{"clients=8"})
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) != 2 || exps[0].Load.Clients != 8 || len(exps[0].Matrix) != 1 {
		t.Errorf("%d combinations, clients %d, matrix %v; want 2 with clients 8", len(exps), exps[0].Load.Clients, exps[0].Matrix)
	}
}

// A port's key is NODE.NAME, dots included: --set reaches it as one key.
func TestSetClusterPort(t *testing.T) {
	file := []byte("system:\n  driver: etcd\n  cluster: {recipe: etcd, nodes: 3, ports: {etcd1.client: 2379}}\nworkload: {files: workloada}\n")
	exps, err := ParseExperiment("p.yaml", file, []string{"system.cluster.ports.etcd1.client=12379", "system.cluster.ports.etcd2.peer=22380"})
	if err != nil {
		t.Fatal(err)
	}
	got := exps[0].System.Cluster.Ports
	if len(got) != 2 || got["etcd1.client"] != "12379" || got["etcd2.peer"] != "22380" {
		t.Errorf("ports %v, want etcd1.client=12379 etcd2.peer=22380", got)
	}
}

func TestParseExperimentCluster(t *testing.T) {
	exps, err := ParseExperiment("e.yaml", []byte(`
system:
  driver: etcd
  version: "3.4"
  cluster: {recipe: etcd, nodes: 3, binary: /usr/bin/etcd, config: {heartbeat-interval: 50}}
workload: {files: workloada}
load:
  model: open
  clients: 8
  schedule:
    - {rate: 100, for: 5s}
    - {ramp_to: 1000, for: 10s}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := exps[0].System.Cluster
	if c == nil || c.Recipe != "etcd" || c.Nodes != 3 || c.Config["heartbeat-interval"] != "50" || exps[0].System.Version != "3.4" {
		t.Fatalf("cluster %+v", c)
	}
	s := exps[0].Load.Schedule
	if len(s) != 2 || s[0].Rate != 100 || s[1].Rate != 1000 || !s[1].Ramp || s[0].Ramp || s[1].For != 10*time.Second {
		t.Errorf("schedule %+v", s)
	}
}

// Every mistake is found before anything runs, with file:line:column, the
// key path and what was expected.
func TestParseExperimentErrors(t *testing.T) {
	base := "system: {driver: null}\nworkload: {files: [workloada]}\n"
	cases := []struct {
		name, text string
		sets       []string
		want       string
	}{
		{"malformed YAML", "system: [\n", nil, "x.yaml:1:1: malformed YAML"},
		{"top not a mapping", "- a\n", nil, "x.yaml:1:1: expected a mapping"},
		{"empty", "", nil, "empty file"},
		{"recreate without load", base + "dataset: {load: false, recreate: true}\n", nil, "x.yaml:3:34: dataset.recreate: recreating the data means loading it"},
		{"unknown top key", base + "lod: {clients: 2}\n", nil, `x.yaml:3:1: lod: unknown key (expected one of check, cycle_targets, dataset, kubernetes, load, matrix`},
		{"typo suggestion", base + "load: {clinets: 2}\n", nil, `x.yaml:3:8: load.clinets: unknown key (expected one of arrival, clients`},
		{"wrong type", base + "load: {clients: many}\n", nil, `x.yaml:3:17: load.clients: expected an integer, got "many"`},
		{"negative", base + "load: {clients: 0}\n", nil, `load.clients: expected an integer ≥ 1, got 0`},
		{"bad duration", base + "load: {duration: 5}\n", nil, `x.yaml:3:18: load.duration: expected a duration such as 30s`},
		{"duplicate key", base + "seed: 1\nseed: 2\n", nil, "x.yaml:4:1: seed: given twice"},
		{"missing system", "workload: {files: [workloada]}\n", nil, "system: missing"},
		{"missing driver", "system: {version: x}\nworkload: {files: [a]}\n", nil, "x.yaml:1:9: system: missing driver"},
		{"list where a map is expected", base + "dataset: [1]\n", nil, "x.yaml:3:10: dataset: expected a mapping"},
		{"matrix key unknown", base + "matrix: {load.clents: [1, 2]}\n", nil, `x.yaml:3:10: matrix.load.clents: not a key of an experiment file (did you mean "load.clients"?)`},
		{"matrix not a list", base + "matrix: {clients: 4}\n", nil, "x.yaml:3:19: matrix.clients: expected a non-empty list"},
		{"matrix value bad", base + "matrix: {clients: [1, two]}\n", nil, `x.yaml:3:23: load.clients: expected an integer, got "two"`},
		{"schedule step with both", base + "load: {schedule: [{rate: 1, ramp_to: 2, for: 1s}]}\n", nil, "load.schedule[0]: expected exactly one of rate"},
		{"fault without a target", base + "scenario: [{fault: kill}]\n", nil, "x.yaml:3:12: scenario[0]: expected fault and target"},
		{"fault with a typo", base + "scenario: [{fault: kill, target: leader, att: 1s}]\n", nil, `scenario[0].att: unknown key`},
		{"set with a bad value", base, []string{"load.clients=x"}, `--set load.clients=x: load.clients: expected an integer, got "x"`},
		{"set with a bad nested value", base, []string{"load.schedule=[{rate: 1, ramp_to: 2, for: 1s}]"}, `--set load.schedule=[{rate: 1, ramp_to: 2, for: 1s}]: load.schedule[0]: expected exactly one of rate`},
		{"set without =", base, []string{"load.clients"}, `--set "load.clients": expected key.path=value`},
		{"set of an unknown key", base, []string{"load.clents=3"}, `--set load.clents: not a key of an experiment file (did you mean "load.clients"?)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseExperiment("x.yaml", []byte(tc.text), tc.sets)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
	_, err := ParseExperiment("x.yaml", []byte(base+"load: {clients: 0}\n"), nil)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != "load.clients" || fe.Pos.Line != 3 {
		t.Errorf("error %v is not a FileError at load.clients, line 3", err)
	}
}

// Errorf points at the value a semantic check is about, or the nearest key
// that was written.
func TestExperimentErrorf(t *testing.T) {
	exps, err := ParseExperiment("x.yaml", []byte("system:\n  driver: nosuch\nworkload: {files: [a]}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := exps[0].Errorf("system.driver", "unknown driver").Error(); got != "x.yaml:2:11: system.driver: unknown driver" {
		t.Errorf("Errorf = %q", got)
	}
	if got := exps[0].Errorf("system.cluster.nodes", "no cluster").Error(); !strings.HasPrefix(got, "x.yaml:2:3: system:") {
		t.Errorf("Errorf on an unwritten key = %q, want the nearest written one", got)
	}
	// A --set value has no line in the file: the error names the flag.
	exps, err = ParseExperiment("x.yaml", []byte("system: {driver: null}\nworkload: {files: [a]}\nrate: {precision: 5%}\n"), []string{"rate.precision=abc"})
	if err != nil {
		t.Fatal(err)
	}
	if got := exps[0].Errorf("rate.precision", "expected a percentage").Error(); got != "--set rate.precision=abc: rate.precision: expected a percentage" {
		t.Errorf("Errorf on a --set value = %q", got)
	}
}

func FuzzParseExperiment(f *testing.F) {
	f.Add([]byte(sweep))
	f.Add([]byte("system: {driver: null}\nworkload: {files: [a]}\nmatrix: {clients: [1, 2]}\n"))
	f.Add([]byte("load: {schedule: [{rate: 1, for: 1s}]}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			return
		}
		exps, err := ParseExperiment("f.yaml", b, nil)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		if len(exps) == 0 {
			t.Fatal("no error and no experiment")
		}
		for _, e := range exps {
			if e.System.Driver == "" || e.Repeat < 1 {
				t.Fatalf("decoded an invalid experiment: %+v", e)
			}
		}
	})
}

package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
)

// The sweep example resolves to one run per matrix value, each tagged with
// the experiment, with the file's values in force and their file:line kept.
func TestResolveBenchSweep(t *testing.T) {
	b, err := ResolveBench(filepath.Join("..", "examples", "pebble-clients-sweep.yaml"), BenchOptions{Sets: []string{"duration=1s"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Runs) != 3 || b.Name != "pebble-clients-sweep" {
		t.Fatalf("%d runs of %q, want 3 of pebble-clients-sweep", len(b.Runs), b.Name)
	}
	for i, want := range []int{1, 4, 16} {
		p := b.Runs[i].Plan
		if p.Config.Clients != want || p.Config.Duration.Seconds() != 1 || p.Config.Operations != 0 || p.Workload.LoadCount() != 100000 {
			t.Errorf("run %d: clients %d duration %v operations %d records %d", i, p.Config.Clients, p.Config.Duration, p.Config.Operations, p.Workload.LoadCount())
		}
		if !strings.Contains(strings.Join(p.Tags, ","), "experiment:pebble-clients-sweep") || p.Config.Seed != 42 {
			t.Errorf("run %d: tags %v seed %d", i, p.Tags, p.Config.Seed)
		}
		if _, src, _ := p.Props.Lookup("pebble.cachemb"); !strings.HasSuffix(src.String(), "pebble-clients-sweep.yaml:16") {
			t.Errorf("pebble.cachemb comes from %s, want the file's line 16", src)
		}
	}
}

func TestResolveBenchErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, text, want string }{
		{"unknown driver", "system: {driver: nosuch}\nworkload: {files: [workloada]}\n", `x.yaml:1:18: system.driver: unknown driver "nosuch"`},
		{"unknown property", "system: {driver: null}\nworkload: {files: [workloada], props: {readproprtion: 0.5}}\n", `x.yaml:2: unknown property "readproprtion"`},
		{"bad property value", "system: {driver: null}\nworkload: {files: [workloada]}\ndataset: {records: 10}\nload: {model: open}\n", "rate"},
		{"mariadb has no replicas", "system: {driver: mysql, cluster: {recipe: mariadb,\n  replicas: 1}}\nworkload: {files: [workloada]}\n", "x.yaml:2:13: system.cluster.replicas: the mariadb recipe is one server"},
		{"hazelcast has no sentinels", "system: {driver: hazelcast, cluster: {recipe: hazelcast, sentinels: 3}}\nworkload: {files: [workloada]}\n", "system.cluster.sentinels"},
		{"wrong driver for a recipe", "system: {driver: postgres, cluster: {recipe: mariadb}}\nworkload: {files: [workloada]}\n", `"postgres" cannot drive a mariadb cluster (expected driver mysql)`},
		{"unknown recipe", "system: {driver: mysql, cluster: {recipe: oracle}}\nworkload: {files: [workloada]}\n", `no local cluster recipe "oracle" (expected one of [cassandra etcd ferretdb hazelcast influxdb mariadb mysql postgres redis victoriametrics])`},
		{"too many runs", "system: {driver: null}\nworkload: {files: [workloada]}\nmatrix: {clients: [1,2,3,4,5,6,7,8,9,10,11]}\nrepeat: 10\n", "makes 110 runs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, "x.yaml")
			if err := os.WriteFile(f, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := ResolveBench(f, BenchOptions{Store: filepath.Join(dir, "r.db")})
			if err == nil && tc.name == "unknown property" {
				// Unknown properties are found when the driver opens (drivers
				// read theirs), still before anything is stored.
				_, err = Execute(context.Background(), b.Runs[0].Plan, Hooks{})
			}
			if err == nil || !IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (input %v), want bad input mentioning %q", err, IsInput(err), tc.want)
			}
		})
	}
}

// A small sweep end to end: every run stored, tagged, in order.
func TestBenchExecute(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.yaml")
	os.WriteFile(f, []byte(`name: tiny
system: {driver: sim, props: {sim.latency: 50us}}
dataset: {records: 100}
workload: {files: [workloadc]}
load: {operations: 200}
matrix: {clients: [1, 2]}
repeat: 2
`), 0o644)
	store := filepath.Join(dir, "r.db")
	b, err := ResolveBench(f, BenchOptions{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	outs, err := b.Execute(context.Background(), Hooks{}, func(i int, r BenchRun) { labels = append(labels, r.Label()) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(labels, "|") != "clients=1 rep=1|clients=1 rep=2|clients=2 rep=1|clients=2 rep=2" {
		t.Errorf("labels %q", labels)
	}
	s, err := results.OpenExisting(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.ListRuns(context.Background(), results.Filter{Tag: "experiment:tiny"})
	if err != nil || len(runs) != 4 || len(outs) != 4 {
		t.Fatalf("%d runs stored with the experiment's tag (%v), %d outcomes; want 4", len(runs), err, len(outs))
	}
	for _, o := range outs {
		sum, ok := o.Outcome.Measured()
		if !ok || sum.Overall.Count != 200 || o.Outcome.Status != StatusDone {
			t.Errorf("%s: status %s, %d ops", o.Run.Label(), o.Outcome.Status, sum.Overall.Count)
		}
		d, _ := s.Run(context.Background(), o.Outcome.RunID)
		if want := o.Run.Plan.Config.Clients; d.Info.Load.Clients != want {
			t.Errorf("stored clients %d, want %d", d.Info.Load.Clients, want)
		}
		if _, ok := d.Phase(measure.PhaseMeasure); !ok {
			t.Error("no measure phase stored")
		}
	}
}

// A rate schedule in the file becomes the open model's schedule; its length
// bounds the run when no duration is given.
func TestBenchSchedule(t *testing.T) {
	f := filepath.Join(t.TempDir(), "s.yaml")
	os.WriteFile(f, []byte(`system: {driver: null}
workload: {files: [workloadc]}
dataset: {records: 10}
load:
  clients: 4
  arrival: poisson
  schedule:
    - {rate: 100, for: 2s}
    - {ramp_to: 500, for: 3s}
`), 0o644)
	b, err := ResolveBench(f, BenchOptions{Store: filepath.Join(t.TempDir(), "r.db")})
	if err != nil {
		t.Fatal(err)
	}
	cfg := b.Runs[0].Plan.Config
	m, ok := cfg.Model.(run.Open)
	if !ok || len(m.Schedule) != 2 || !m.Schedule[1].Ramp || m.Schedule[1].Rate != 500 || cfg.Duration.Seconds() != 5 {
		t.Errorf("model %#v duration %v; want the open model with the file's schedule, 5s", cfg.Model, cfg.Duration)
	}
	if s := cfg.Settings(); s.Arrival != "poisson" || s.Rate != 500 {
		t.Errorf("settings %+v", s)
	}
}

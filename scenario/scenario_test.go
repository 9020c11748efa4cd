package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/driver/etcd"
	"github.com/dbrig/dbrig/spec"
)

// scenarioFile writes an etcd experiment with the given scenario lines
// (YAML under "scenario:") and reads it.
func scenarioFile(t *testing.T, scenario string) (spec.Experiment, string) {
	t.Helper()
	text := `name: s
system:
  driver: etcd
  cluster: {recipe: etcd, nodes: 3}
workload: {files: [workloada]}
load: {duration: 30s}
scenario:
` + scenario
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	exps, err := spec.ReadExperiment(path, nil)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return exps[0], path
}

// scenarioPlan checks e's scenario as experiment does: with the recipe of
// the file's local cluster (nil: none).
func scenarioPlan(e spec.Experiment, measure time.Duration) ([]Injection, error) {
	return Plan(e, fileRecipe(e), measure)
}

// fileRecipe builds the recipe of e's system.cluster through its driver's
// home, with the file's options (nil: no local cluster).
func fileRecipe(e spec.Experiment) cluster.Recipe {
	c := e.System.Cluster
	if c == nil {
		return nil
	}
	name := c.Recipe
	if name == "" {
		name = e.System.Driver
	}
	build := all.Registry()[e.System.Driver].Clusters[name]
	if build == nil {
		return nil
	}
	given := func(key string) bool { _, ok := e.Position("system.cluster." + key); return ok }
	refuse := func(key, why string) error { return e.Errorf("system.cluster."+key, "%s", why) }
	r, err := build(*c, given, refuse)
	if err != nil {
		return nil
	}
	return r
}

func TestScenarioPlan(t *testing.T) {
	e, _ := scenarioFile(t, `
  - {name: a, fault: kill, target: leader, at: 2s}
  - {name: b, fault: pause, target: follower, after: a, wait: 3s, for: 2s}
  - {name: c, fault: delay, target: etcd2, delay: 100ms, jitter: 10ms, after: b, wait: 1s, for: 2s, every: 5s, count: 3}
  - {name: d, fault: partition, target: all, groups: [[etcd1], [etcd2, etcd3]], at: 1s, for: 1s}
  - {name: e, fault: bandwidth, target: etcd3, rate: 100KB, at: 1s, for: 1s}
`)
	plan, err := scenarioPlan(e, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range plan {
		got = append(got, in.Name+"@"+in.At.String()+"/"+in.Link)
	}
	// b: a fired at 2s (instant) + 3s; c: b ended at 7s + 1s, then every 5s.
	want := "d@1s/peer e@1s/client a@2s/ b@5s/ c#1@8s/client c#2@13s/client c#3@18s/client"
	if strings.Join(got, " ") != want {
		t.Errorf("plan %v\nwant %v", strings.Join(got, " "), want)
	}
}

func TestScenarioBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, where, msg string
	}{
		{"unknown fault", `
  - {fault: meteor, target: leader, at: 1s}`, ":9:", "unknown fault"},
		{"unknown target", `
  - {fault: kill, target: "Leader!", at: 1s}`, ":9:", "expected a node name"},
		{"missing cause", `
  - {name: a, fault: kill, target: leader, at: 1s}
  - {name: b, fault: kill, target: leader, after: nope}`, ":10:", `no fault named "nope"`},
		{"cycle", `
  - {name: a, fault: pause, target: etcd1, for: 1s, after: c}
  - {name: b, fault: pause, target: etcd2, for: 1s, after: a}
  - {name: c, fault: pause, target: etcd3, for: 1s, after: b}`, ":9:", "cycle: a → c → b → a"},
		{"past the end", `
  - {fault: pause, target: etcd1, at: 25s, for: 10s}`, ":9:", "past the measure phase"},
		{"dependent past the end", `
  - {name: a, fault: pause, target: etcd1, at: 20s, for: 5s}
  - {name: b, fault: pause, target: etcd2, after: a, wait: 4s, for: 2s}`, ":10:", "past the measure phase"},
		{"two process faults on one node", `
  - {fault: pause, target: etcd1, at: 1s, for: 10s}
  - {fault: pause, target: etcd1, at: 5s, for: 1s}`, ":10:", "cannot hold"},
		{"fault on a killed node", `
  - {fault: kill, target: etcd1, at: 1s}
  - {fault: delay, target: etcd1, delay: 10ms, at: 5s, for: 1s}`, ":10:", "down for the rest of the run"},
		{"two delays on one link", `
  - {fault: delay, target: etcd1, delay: 10ms, at: 1s, for: 10s}
  - {fault: delay, target: etcd1, delay: 50ms, at: 5s, for: 1s}`, ":10:", "the first heal would undo both"},
		{"bad rate", `
  - {fault: bandwidth, target: etcd1, rate: fast, at: 1s, for: 1s}`, ":9:", "bytes per second"},
		{"delay without delay", `
  - {fault: delay, target: etcd1, at: 1s, for: 1s}`, ":9:", "delay needs delay > 0"},
		{"setting of another fault", `
  - {fault: kill, target: etcd1, at: 1s, rate: 1MB}`, ":9:", "a kill fault has no rate"},
		{"bad link", `
  - {fault: drop, target: etcd1, link: disk, at: 1s, for: 1s}`, ":9:", "expected client"},
		{"network fault without for", `
  - {fault: partition, target: etcd1, at: 1s}`, ":9:", "needs for"},
		{"group twice", `
  - {fault: partition, target: all, groups: [[etcd1], [etcd1, etcd2]], at: 1s, for: 1s}`, ":9:", "in two groups"},
		{"at with after", `
  - {name: a, fault: kill, target: leader, at: 1s}
  - {name: b, fault: kill, target: leader, after: a, at: 2s}`, ":10:", "not at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, path := scenarioFile(t, tc.scenario)
			_, err := scenarioPlan(e, 30*time.Second)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), filepath.Base(path)+tc.where) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q\nwant position %s and %q", err, tc.where, tc.msg)
			}
		})
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]int64{"500": 500, "100KB": 100000, "1MiB/s": 1 << 20, "1.5 MB": 1500000, "2KiB": 2048} {
		if got, err := parseRate(in); err != nil || got != want {
			t.Errorf("parseRate(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"fast", "-1KB", "0", "KB", "0.1B"} {
		if _, err := parseRate(in); err == nil {
			t.Errorf("parseRate(%q) accepted", in)
		}
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"500", "100KB", "1MiB/s", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseRate(s)
		if err == nil && s != "" && (v < 1 || v > 1e12) {
			t.Errorf("parseRate(%q) = %d out of range", s, v)
		}
	})
}

func TestScenarioCommandRestart(t *testing.T) {
	e, _ := scenarioFile(t, `
  - {name: flush, fault: command, target: etcd1, run: "true", heal: "true", at: 1s, for: 1s}
  - {name: bounce, fault: restart, target: etcd2, mode: kill, at: 1s, for: 2s}`)
	plan, err := scenarioPlan(e, 30*time.Second)
	if err != nil || len(plan) != 2 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	for _, tc := range []struct{ scenario, msg string }{
		{`
  - {fault: command, target: etcd1, at: 1s}`, "command needs run"},
		{`
  - {fault: command, target: etcd1, run: "true", heal: "true", at: 1s}`, "needs for"},
		{`
  - {fault: kill, target: etcd1, run: "true", at: 1s}`, "a kill fault has no run"},
		{`
  - {fault: restart, target: etcd1, mode: gently, at: 1s}`, "restart mode"},
		{`
  - {fault: restart, target: etcd1, at: 1s, for: 5s}
  - {fault: pause, target: etcd1, at: 2s, for: 1s}`, "cannot hold"},
	} {
		e, _ := scenarioFile(t, tc.scenario)
		if _, err := scenarioPlan(e, 30*time.Second); err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "s.yaml:9:") && !strings.Contains(err.Error(), "s.yaml:10:") {
			t.Errorf("%s: %v, want %q with a position", tc.scenario, err, tc.msg)
		}
	}
}

func TestScenarioConditionalBadInput(t *testing.T) {
	for _, tc := range []struct{ scenario, msg string }{
		{`
  - {fault: pause, target: etcd1, for: 1s, when: sometimes}`, "expected stable"},
		{`
  - {fault: pause, target: etcd1, for: 1s, stable_for: 5s}`, "needs when: stable"},
		{`
  - {fault: pause, target: etcd1, for: 1s, when: stable, every: 5s, count: 2}`, "fires once"},
		{`
  - {name: a, fault: pause, target: etcd1, for: 1s, when: stable}
  - {name: b, fault: pause, target: etcd2, for: 1s, after: a}`, "nothing can wait for it"},
		{`
  - {fault: pause, target: etcd1, at: 15s, for: 6s, when: stable}`, "past the measure phase"},
	} {
		e, _ := scenarioFile(t, tc.scenario)
		if _, err := scenarioPlan(e, 30*time.Second); err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "s.yaml:") {
			t.Errorf("%s: %v, want %q with a position", tc.scenario, err, tc.msg)
		}
	}
}

func TestReplaceAddrs(t *testing.T) {
	repl := map[string]string{"127.0.0.1:4068": "127.0.0.1:1111", "127.0.0.1:40689": "127.0.0.1:2222"}
	for in, want := range map[string]string{
		"127.0.0.1:4068,127.0.0.1:40689":   "127.0.0.1:1111,127.0.0.1:2222",
		"127.0.0.1:40689,127.0.0.1:4068":   "127.0.0.1:2222,127.0.0.1:1111",
		"redis://127.0.0.1:40689/0":        "redis://127.0.0.1:2222/0",
		"127.0.0.1:406,127.0.0.1:406890":   "127.0.0.1:406,127.0.0.1:406890",
		"postgres://u@127.0.0.1:4068/db?x": "postgres://u@127.0.0.1:1111/db?x",
	} {
		if got := replaceAddrs(in, repl); got != want {
			t.Errorf("replaceAddrs(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKindsOwnTheirSettings: each local kind takes its own settings and
// refuses every other kind's, at the setting's key.
func TestKindsOwnTheirSettings(t *testing.T) {
	given := map[string]func(*spec.Fault){
		"delay": func(f *spec.Fault) { f.Delay = time.Millisecond }, "jitter": func(f *spec.Fault) { f.Jitter = time.Millisecond },
		"rate": func(f *spec.Fault) { f.Rate = "1MB" }, "mode": func(f *spec.Fault) { f.Mode = "kill" },
		"run": func(f *spec.Fault) { f.Run = "true" }, "heal": func(f *spec.Fault) { f.Heal = "true" },
		"groups": func(f *spec.Fault) { f.Groups = [][]string{{"etcd1"}, {"etcd2"}} }, "link": func(f *spec.Fault) { f.Link = "client" },
	}
	for _, name := range kindNames {
		takes := kindOf(name).settings()
		for key, set := range given {
			f := spec.Fault{Kind: name, Name: name, Target: "etcd1"}
			set(&f)
			bad := func(k, format string, args ...any) error { return fmt.Errorf(k+": "+format, args...) }
			_, err := checkEntry(f, etcd.Cluster{}, bad)
			refused := err != nil && err.Error() == fmt.Sprintf("%s: a %s fault has no %s", key, name, key)
			if refused == slices.Contains(takes, key) {
				t.Errorf("%s with %s: %v (takes %v)", name, key, err, takes)
			}
		}
	}
	if kindOf("meteor") != nil {
		t.Error("a kind nobody knows")
	}
}

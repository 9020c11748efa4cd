package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
)

// Flags that stand for properties override them, and what is stored is
// what ran: --duration 2s is not stored beside maxexecutiontime=10.
func TestResolveOverridesWin(t *testing.T) {
	p, err := Resolve(Options{
		Driver: "null", Props: []string{"maxexecutiontime=10", "threadcount=8", "target=5"},
		Overrides: []Override{
			{Flag: "--duration", Key: "maxexecutiontime", Value: "2.5"},
			{Flag: "--clients", Key: "threadcount", Value: "3"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.Config.Duration != 2500*time.Millisecond || p.Config.Clients != 3 {
		t.Errorf("duration %v clients %d, want 2.5s and 3", p.Config.Duration, p.Config.Clients)
	}
	if s := p.Config.Settings(); s.Model != run.OpenName || s.Rate != 5 {
		t.Errorf("settings %+v, want the open model at 5 ops/s (target is set)", s)
	}
	m := p.Props.Map()
	if m["maxexecutiontime"] != "2.5" || m["threadcount"] != "3" {
		t.Errorf("stored properties %v, want the overridden values", m)
	}
	if !strings.Contains(p.SpecText, "maxexecutiontime=2.5  # flag --duration\n") {
		t.Errorf("spec text does not show the override:\n%s", p.SpecText)
	}
}

func TestResolveRejectsBadInput(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"unknown driver", Options{Driver: "nosuch"}, `unknown driver "nosuch"`},
		{"bad property value", Options{Props: []string{"recordcount=-1"}}, "recordcount"},
		{"bad model", Options{Model: "sideways"}, "sideways"},
		{"open without rate", Options{Model: run.OpenName}, "rate"},
		{"missing file", Options{PropFiles: []string{"/nonexistent/wl"}}, "/nonexistent/wl"},
		{"a device", Options{PropFiles: []string{"/dev/zero"}}, "not a regular file"},
		{"a directory", Options{PropFiles: []string{"/tmp"}}, "not a regular file"},
		{"no bound", Options{Props: []string{"operationcount=0"}, PropFiles: []string{"workloada"}}, "bound"},
		// A typo is found before anything connects: the driver declares
		// what it reads (redis.adr would otherwise meet a connection error).
		{"typo in a driver property", Options{Driver: "redis", Props: []string{"redis.adr=127.0.0.1:1"}}, `unknown property "redis.adr" (did you mean "redis.addr"?)`},
		{"typo next to a missing required property", Options{Driver: "mysql", Props: []string{"recordcont=5"}}, `"recordcont" (did you mean "recordcount"?)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(tc.o)
			if err == nil || !IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Resolve: %v (input: %v), want bad input mentioning %q", err, IsInput(err), tc.want)
			}
		})
	}
	if !errors.Is(mustErr(Resolve(Options{Driver: "nosuch"})), driver.ErrUnknownDriver) {
		t.Error("unknown driver is not driver.ErrUnknownDriver")
	}
}

// A FIFO given to -P is refused at once instead of blocking the run.
func TestResolveRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Resolve(Options{PropFiles: []string{fifo}}); done <- err }()
	select {
	case err := <-done:
		if !IsInput(err) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Resolve(-P fifo) = %v, want bad input: not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Resolve blocked on a FIFO")
	}
}

func mustErr(_ *Plan, err error) error { return err }

// A required driver property that is missing is bad input, found before
// anything is stored; so is a property nobody reads.
func TestExecuteBadDriverInputStoresNothing(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	for _, o := range []Options{
		{Driver: "mysql", Store: store},
	} {
		p, err := Resolve(o)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Execute(context.Background(), p, Hooks{})
		if out != nil || !IsInput(err) {
			t.Errorf("%s: outcome %v, error %v; want no outcome and bad input", o.Driver, out, err)
		}
	}
	s, err := results.Open(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runs, _ := s.ListRuns(context.Background(), results.Filter{}); len(runs) != 0 {
		t.Errorf("bad input stored %d runs", len(runs))
	}
}

type countingObserver struct {
	intervals int
	events    []string
}

func (c *countingObserver) Interval(measure.Interval) { c.intervals++ }
func (c *countingObserver) Event(e run.Event)         { c.events = append(c.events, e.Kind+":"+e.Name) }

func TestExecuteStoresRunAndCallsHooks(t *testing.T) {
	store := filepath.Join(t.TempDir(), "r.db")
	p, err := Resolve(Options{Driver: "sim", Store: store, Name: "t", Tags: []string{"x"},
		Props: []string{"recordcount=50", "operationcount=300", "sim.latency=100us"}, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var started Started
	obs := &countingObserver{}
	out, err := Execute(context.Background(), p, Hooks{Started: func(s Started) { started = s }, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusDone || started.RunID != out.RunID || started.Store == "" {
		t.Errorf("outcome %+v, started %+v", out, started)
	}
	sum, ok := out.Measured()
	if !ok || sum.Overall.Count != 300 {
		t.Errorf("measured %v count %d, want 300", ok, sum.Overall.Count)
	}
	if out.PhaseStarts[measure.PhaseLoad].IsZero() || out.PhaseStarts[measure.PhaseMeasure].IsZero() {
		t.Errorf("phase starts %v", out.PhaseStarts)
	}
	if out.Origin.IsZero() || !out.Origin.Before(out.PhaseStarts[measure.PhaseMeasure]) {
		t.Errorf("sim's time origin %v not reported before the measure phase", out.Origin)
	}
	want := []string{"phase_start:load", "phase_end:load", "phase_start:measure", "phase_end:measure"}
	if strings.Join(obs.events, " ") != strings.Join(want, " ") || obs.intervals < 2 {
		t.Errorf("caller's observer saw %v and %d intervals, want %v", obs.events, obs.intervals, want)
	}
	s, err := results.OpenExisting(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := s.Run(context.Background(), out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != StatusDone || d.Info.Load.Seed != 7 || d.Info.Load.Model != run.ClosedName || d.Info.Name != "t" {
		t.Errorf("stored run: status %q seed %d model %q name %q", d.Status, d.Info.Load.Seed, d.Info.Load.Model, d.Info.Name)
	}
	if m, ok := d.Phase(measure.PhaseMeasure); !ok || m.Overall.Count != 300 {
		t.Errorf("stored measure phase: %v %d", ok, m.Overall.Count)
	}
}

// A run interrupted mid-way is stored as interrupted with what it measured.
func TestExecuteInterrupted(t *testing.T) {
	p, err := Resolve(Options{Driver: "sim", Store: filepath.Join(t.TempDir(), "r.db"),
		Props: []string{"recordcount=20", "sim.latency=1ms"}, Overrides: []Override{{Flag: "t", Key: "maxexecutiontime", Value: "60"}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	out, err := Execute(ctx, p, Hooks{})
	if out == nil || out.Status != StatusInterrupted || !errors.Is(err, context.Canceled) {
		t.Fatalf("outcome %+v, err %v; want interrupted", out, err)
	}
	if sum, ok := out.Measured(); !ok || sum.Overall.Count == 0 {
		t.Errorf("interrupted run kept no measurements")
	}
}

// YCSB's own template files set client properties dbrig replaces with its
// own outputs: they run, with one warning line naming them; a typo next to
// them is still an error.
func TestYCSBPropertiesDbrigIgnores(t *testing.T) {
	p, err := Resolve(Options{Driver: "null", Props: []string{"exportfile=/tmp/x", "measurementtype=hdrhistogram", "dotransactions=true"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "dotransactions, exportfile, measurementtype") {
		t.Errorf("warnings %q", p.Warnings)
	}
	if _, err := Resolve(Options{Driver: "null", Props: []string{"exportfile=/tmp/x", "exprotfile=/tmp/y"}}); !IsInput(err) {
		t.Errorf("a typo among ignored properties: %v", err)
	}
}

// With Hooks.Store, runs are written to the caller's open store (a rating's,
// for all its experiments), which Execute leaves open; p.Store is not opened.
func TestExecuteWritesToCallersStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	held, err := results.Open(ctx, filepath.Join(dir, "held.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	named := filepath.Join(dir, "named.db")
	var ids []int64
	for range 2 {
		p, err := Resolve(Options{Driver: "sim", Store: named, Name: "t",
			Props: []string{"recordcount=50", "operationcount=300", "sim.latency=100us"}, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		out, err := Execute(ctx, p, Hooks{Store: held})
		if err != nil {
			t.Fatalf("run %d: %v", len(ids)+1, err)
		}
		ids = append(ids, out.RunID)
	}
	for _, id := range ids { // still open after both runs
		d, err := held.Run(ctx, id)
		if err != nil {
			t.Fatalf("run %d in the caller's store: %v", id, err)
		}
		if m, ok := d.Phase(measure.PhaseMeasure); d.Status != StatusDone || !ok || m.Overall.Count != 300 {
			t.Errorf("run %d: status %q, measure phase %v with %d operations", id, d.Status, ok, m.Overall.Count)
		}
	}
	if ids[0] == ids[1] {
		t.Errorf("both runs got id %d", ids[0])
	}
	if _, err := os.Stat(named); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the plan's store %s was opened (stat: %v)", named, err)
	}
}

// One Plan executed twice (the same experiment again, each run loading
// afresh): each run gets a workload of its own. With the first run's, the
// second read keys its own load never wrote and every operation failed.
func TestExecuteOnePlanTwice(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "r.db")
	for _, drv := range []string{"sim", "sqlite"} {
		p, err := Resolve(Options{Driver: drv, Store: store, Props: []string{"recordcount=50", "operationcount=300"}, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			out, err := Execute(context.Background(), p, Hooks{})
			if err != nil {
				t.Fatalf("%s, run %d: %v", drv, i+1, err)
			}
			if sum, ok := out.Measured(); !ok || sum.Overall.Count != 300 || sum.Overall.Errors != 0 {
				t.Errorf("%s, run %d: measured %v, %d operations, %d errors; want 300 without errors", drv, i+1, ok, sum.Overall.Count, sum.Overall.Errors)
			}
		}
	}
}

// Package webtest fills a results store with runs for the tests and
// benchmarks of report and web. Everything goes through the results API
// (CreateRun, AddInterval, AddPhase, AddEvent, FinishRun) with histograms
// from measure.NewHistogram, so the tests read what a real run would store.
package webtest

import (
	"context"
	"fmt"
	"time"

	"github.com/dbrig/dbrig/loadmodel"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// RunSpec describes one synthetic run.
type RunSpec struct {
	Name, System, Version, Workload string
	Tags                            []string
	Start                           time.Time
	Warmup, Measure                 int   // seconds of each phase
	BaseUS                          int64 // typical READ latency
	// FaultFrom..FaultTo (seconds into the measure phase) slows READ tenfold,
	// makes 5% of them time out and lets a queue build: response time grows
	// beyond service time there. Zero FaultTo: no fault.
	FaultFrom, FaultTo int
	Status             string // results.StatusDone when empty
	NoEvents           bool   // store no events (faster, for big stores)
	// Timeline stores a per-operation timeline of the measure phase (an
	// operation every 10 ms, 1 ms each; every one failing, 2 ms, from
	// FaultFrom to FaultTo): the fault's unavailable time is then
	// (FaultTo − FaultFrom) s + 1 ms.
	Timeline bool
	// Load is the stored load model's model, clients and rate (zero: open,
	// 8 clients, 1,000 ops/s).
	Load loadmodel.Load
}

// Run is what Add stored.
type Run struct {
	ID        int64
	Spec      RunSpec
	Intervals []measure.Interval // all of them, warmup first
	Measure   measure.Summary
}

// Default is a 2 s warmup + 10 s measure run with a fault from 4 s to 6 s.
func Default(start time.Time) RunSpec {
	return RunSpec{Name: "baseline", System: "sim", Version: "1.0", Workload: "ycsb/workloada",
		Tags: []string{"nightly"}, Start: start, Warmup: 2, Measure: 10, BaseUS: 200, FaultFrom: 4, FaultTo: 6}
}

// Add stores one run as spec says and returns it.
func Add(ctx context.Context, s *results.Store, spec RunSpec) (Run, error) {
	if spec.Status == "" {
		spec.Status = results.StatusDone
	}
	info := results.RunInfo{
		Name: spec.Name, Tags: spec.Tags, Command: "dbrig run -P " + spec.Workload,
		System: spec.System, Driver: spec.System, ServerVersion: spec.Version, Target: "127.0.0.1:1",
		Workload: spec.Workload,
		Props:    map[string]string{"recordcount": "1000", "operationcount": "0", "readproportion": "0.9", "updateproportion": "0.1"},
		Load: loadmodel.Load{Model: "open", Clients: 8, Rate: 1000, Arrival: "poisson",
			Warmup: time.Duration(spec.Warmup) * time.Second, Duration: time.Duration(spec.Measure) * time.Second, Seed: 7},
		Host:         results.Host{Hostname: "testhost", OS: "Debian", Kernel: "6.1", CPUModel: "Test CPU", Cores: 2, MemoryBytes: 4 << 30},
		DbrigVersion: "test", Start: spec.Start,
		Spec: "recordcount=1000\n",
	}
	if spec.Load.Model != "" {
		info.Load.Model, info.Load.Clients, info.Load.Rate, info.Load.Arrival = spec.Load.Model, spec.Load.Clients, spec.Load.Rate, spec.Load.Arrival
	}
	id, err := s.CreateRun(ctx, info)
	if err != nil {
		return Run{}, err
	}
	run := Run{ID: id, Spec: spec}
	event := func(e results.Event) error {
		if spec.NoEvents {
			return nil
		}
		return s.AddEvent(ctx, id, e)
	}
	// The first interval ends 1.25 s after the start (setup time), like a
	// real run whose clock does not start on a whole second.
	t := spec.Start.Add(250 * time.Millisecond)
	phase := func(name string, secs int) error {
		if secs == 0 {
			return nil
		}
		if err := event(results.Event{Time: t, Kind: "phase_start", Name: name}); err != nil {
			return err
		}
		var ivs []measure.Interval
		for i := 0; i < secs; i++ {
			fault := name == measure.PhaseMeasure && i >= spec.FaultFrom && i < spec.FaultTo
			if name == measure.PhaseMeasure && spec.FaultTo > 0 {
				switch i {
				case spec.FaultFrom:
					err = event(results.Event{Time: t, Kind: "fault_start", Name: "kill node2", Outcome: "ok"})
				case spec.FaultTo:
					err = event(results.Event{Time: t, Kind: "fault_end", Name: "kill node2", Outcome: "ok"})
				}
				if err != nil {
					return err
				}
			}
			iv, err := interval(name, t, i, spec.BaseUS, fault)
			if err != nil {
				return err
			}
			if err := s.AddInterval(ctx, id, iv); err != nil {
				return err
			}
			ivs = append(ivs, iv)
			run.Intervals = append(run.Intervals, iv)
			t = iv.End
		}
		sum := measure.Summarize(name, ivs, nil)
		if name == measure.PhaseMeasure && spec.FaultTo > 0 {
			sum.Errors = []measure.ErrorSample{{Op: "READ", Class: "timeout", Message: "read 127.0.0.1:1: i/o timeout", Count: sum.Overall.Errors}}
			run.Measure = sum
		} else if name == measure.PhaseMeasure {
			run.Measure = sum
		}
		if err := s.AddPhase(ctx, id, sum); err != nil {
			return err
		}
		return event(results.Event{Time: t, Kind: "phase_end", Name: name})
	}
	if err := phase(measure.PhaseWarmup, spec.Warmup); err != nil {
		return run, fmt.Errorf("run %d: %w", id, err)
	}
	if spec.Measure > 0 {
		if err := event(results.Event{Time: t.Add(3500 * time.Millisecond), Kind: "note", Name: "compaction"}); err != nil {
			return run, err
		}
	}
	measureStart := t
	if err := phase(measure.PhaseMeasure, spec.Measure); err != nil {
		return run, fmt.Errorf("run %d: %w", id, err)
	}
	if spec.Timeline {
		var ops []results.TimedOp
		from := measureStart.Add(time.Duration(spec.FaultFrom) * time.Second)
		to := measureStart.Add(time.Duration(spec.FaultTo) * time.Second)
		for at := measureStart; at.Before(t); at = at.Add(10 * time.Millisecond) {
			o := results.TimedOp{StartUS: at.Sub(spec.Start).Microseconds(), LatencyUS: 1000, OK: true}
			if !at.Before(from) && at.Before(to) {
				o.LatencyUS, o.OK = 2000, false
			}
			ops = append(ops, o)
		}
		if err := s.AddTimeline(ctx, id, ops); err != nil {
			return run, err
		}
	}
	if spec.Status != results.StatusRunning {
		msg := ""
		if spec.Status != results.StatusDone {
			msg = "interrupted by signal"
		}
		if err := s.FinishRun(ctx, id, spec.Status, t, msg); err != nil {
			return run, err
		}
	}
	return run, nil
}

// interval is one second: READ (about 900/s) and UPDATE (about 100/s, 3×
// slower); i varies the counts a little so that every second differs.
func interval(phase string, start time.Time, i int, baseUS int64, fault bool) (measure.Interval, error) {
	iv := measure.Interval{Phase: phase, Start: start, End: start.Add(time.Second)}
	for _, op := range []struct {
		name  string
		count int
		mult  int64
	}{{"READ", 900 + 7*i, 1}, {"UPDATE", 100 + i, 3}} {
		resp, svc := measure.NewHistogram(), measure.NewHistogram()
		o := measure.OpInterval{Op: op.name, Count: int64(op.count), Response: resp, Service: svc}
		for k := 0; k < op.count; k++ {
			v := baseUS*op.mult + int64(k%100)*baseUS*op.mult/50 // base .. 3×base
			queue := int64(0)
			if fault && op.name == "READ" {
				v *= 10
				queue = int64(k) * baseUS // waits grow while the node is down
				if k%20 == 0 {
					o.Errors++
				}
			}
			if err := svc.RecordValue(v); err != nil {
				return iv, err
			}
			if err := resp.RecordValue(v + queue); err != nil {
				return iv, err
			}
		}
		if o.Errors > 0 {
			o.Classes = map[string]int64{"timeout": o.Errors}
		}
		iv.Ops = append(iv.Ops, o)
	}
	return iv, nil
}

// Many adds n small runs (1 s measure, no warmup, no events) quickly, for list and
// start-up benchmarks: systems, workloads, versions and tags vary.
func Many(ctx context.Context, s *results.Store, n int, start time.Time) error {
	systems := []string{"sim", "redis", "postgres", "sqlite", "pebble"}
	workloads := []string{"ycsb/workloada", "ycsb/workloadb", "ycsb/workloadc"}
	for i := 0; i < n; i++ {
		spec := RunSpec{Name: fmt.Sprintf("run%d", i), System: systems[i%len(systems)], Version: fmt.Sprintf("1.%d", i%4),
			Workload: workloads[i%len(workloads)], Tags: []string{fmt.Sprintf("batch%d", i%10)},
			Start: start.Add(time.Duration(i) * time.Minute), Measure: 1, BaseUS: 100 + int64(i%50), NoEvents: true}
		if _, err := Add(ctx, s, spec); err != nil {
			return fmt.Errorf("run %d of %d: %w", i+1, n, err)
		}
	}
	return nil
}

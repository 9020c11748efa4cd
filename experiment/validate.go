package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/driver/sim"
	"github.com/dbrig/dbrig/measure"
)

// Validation is the classic coordinated-omission experiment (after
// SickStore): an open load of Rate ops/s against a simulated store that
// serves Capacity ops/s and stalls once (Hiccup). The queue model predicts
// the mean response time; dbrig must measure it within Tolerance. A
// closed-loop client paced to the same rate, timing from when it actually
// sent each request, reports far less: the figure other tools print.
type Validation struct {
	Rate      float64
	Ops       int64
	Capacity  float64
	Hiccup    sim.Hiccup
	Tolerance float64 // relative deviation of the mean allowed
}

// ClassicValidation is the 90-second experiment (short: 10 seconds).
func ClassicValidation(short bool) Validation {
	v := Validation{Rate: 1000, Ops: 90_000, Capacity: 1250, Tolerance: 0.05,
		Hiccup: sim.Hiccup{Start: 30 * time.Second, Duration: time.Second}}
	if short {
		v.Ops, v.Hiccup.Start = 10_000, 3*time.Second
	}
	return v
}

// ValidationReport holds the figures of both runs and the verdict.
type ValidationReport struct {
	Validation
	Predicted, PredictedP99 time.Duration
	Open                    measure.Stats // open model, response time
	ClosedSend              measure.Stats // closed loop, service time (coordinated omission)
	ClosedResp              measure.Stats // closed loop, from intended start
	OpenID, ClosedID        int64
	Deviation               float64 // |measured − predicted| / predicted, of the mean
	Pass                    bool
}

// options is one of the two runs: model "open" or "closed".
func (v Validation) options(store, model string) Options {
	o := Options{
		Driver: all.Sim, Store: store, Model: model, Arrival: "constant", MaxBacklog: 1_000_000, Seed: 1,
		LoadBatch: 100, Name: "validate-" + model, Tags: []string{"validate"},
		Command:   "dbrig validate (" + model + " loop)",
		PropFiles: []string{"workloadc"},
		Props: []string{
			"recordcount=1000", "fieldcount=1", "fieldlength=16", "requestdistribution=uniform",
			fmt.Sprintf("operationcount=%d", v.Ops),
			fmt.Sprintf("sim.capacity=%g", v.Capacity),
			fmt.Sprintf("sim.hiccups=%v+%v", v.Hiccup.Start, v.Hiccup.Duration),
		},
		// Open: a pool of 16. Closed: one paced client, as a closed-loop
		// tool with a target rate.
		Overrides: []Override{{Flag: "validate", Key: "threadcount", Value: "16"}, {Flag: "validate", Key: "target", Value: fmt.Sprint(v.Rate)}},
	}
	if model == "closed" {
		o.Overrides[0].Value = "1"
	}
	return o
}

// Run performs the open and the closed-loop run side by side (each on its
// own simulated store, both stored) and compares the open one with the
// queue model's prediction.
func (v Validation) Run(ctx context.Context, store string, h Hooks) (*ValidationReport, error) {
	type result struct {
		model string
		out   *Outcome
		err   error
	}
	plans := map[string]*Plan{}
	for _, model := range []string{"open", "closed"} {
		p, err := Resolve(v.options(store, model))
		if err != nil {
			return nil, fmt.Errorf("%s-loop run: %w", model, err)
		}
		plans[model] = p
	}
	done := make(chan result, 2)
	for model, p := range plans {
		go func() {
			out, err := Execute(ctx, p, h)
			done <- result{model, out, err}
		}()
	}
	rep := &ValidationReport{Validation: v}
	var errs []error
	for range 2 {
		r := <-done
		if r.err != nil || r.out == nil {
			errs = append(errs, fmt.Errorf("%s-loop run: %w", r.model, r.err))
			continue
		}
		sum, ok := r.out.Measured()
		started := r.out.PhaseStarts[measure.PhaseMeasure]
		if !ok || started.IsZero() || sum.Overall.Count == 0 || r.out.Origin.IsZero() {
			errs = append(errs, fmt.Errorf("%s-loop run %d has no measured operations", r.model, r.out.RunID))
			continue
		}
		if r.model == "closed" {
			rep.ClosedID, rep.ClosedSend, rep.ClosedResp = r.out.RunID, sum.Overall.Service, sum.Overall.Response
			continue
		}
		rep.OpenID, rep.Open = r.out.RunID, sum.Overall.Response
		// Arrivals begin when the measure phase starts, counted from the
		// store's origin, from which the hiccup is placed.
		offset := started.Sub(r.out.Origin)
		model := sim.Model{Capacity: v.Capacity, Hiccups: []sim.Hiccup{v.Hiccup}}
		pred := model.Predict(sim.ConstantArrivals(int(v.Ops), v.Rate, offset))
		rep.Predicted, rep.PredictedP99 = pred.Mean, pred.Percentile(99)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	measured := time.Duration(rep.Open.Mean * float64(time.Microsecond))
	rep.Deviation = math.Abs(float64(measured-rep.Predicted)) / float64(rep.Predicted)
	rep.Pass = rep.Deviation <= v.Tolerance
	return rep, nil
}

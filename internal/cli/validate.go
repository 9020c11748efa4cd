package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"time"

	"github.com/dbrig/dbrig/driver/sim"
	"github.com/dbrig/dbrig/measure"
)

// The classic coordinated-omission experiment (after SickStore): an open
// load of 1000 ops/s against a store that serves 1250 ops/s and stalls once
// for a second. The queue model predicts the mean response time; dbrig must
// measure it within tolerance. A closed-loop client paced to the same rate,
// timing from when it actually sent each request, reports far less.
type validation struct {
	rate     float64
	ops      int64
	capacity float64
	hiccup   sim.Hiccup
}

func classicValidation(short bool) validation {
	v := validation{rate: 1000, ops: 90_000, capacity: 1250, hiccup: sim.Hiccup{Start: 30 * time.Second, Duration: time.Second}}
	if short {
		v.ops, v.hiccup.Start = 10_000, 3*time.Second
	}
	return v
}

// tolerance is how far dbrig's mean response time may be from the model's.
const tolerance = 0.05

func validateCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig validate", e.stderr)
	short := fs.Bool("short", false, "a 10-second version (10 000 operations)")
	store := fs.String("store", "", "results database for the two validation runs")
	if _, err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return &usageError{msg: err.Error()}
	}
	v := classicValidation(*short)
	rep, err := v.run(ctx, e, *store)
	if err != nil {
		return err
	}
	rep.print(e)
	if !rep.pass {
		return fmt.Errorf("validation failed: measured mean response time %v is %.1f%% off the model's %v (tolerance %.0f%%)",
			fmtDur(time.Duration(rep.open.Mean*float64(time.Microsecond))), 100*rep.deviation, fmtDur(rep.predicted), 100*tolerance)
	}
	return nil
}

// validationReport holds the figures of both runs.
type validationReport struct {
	v                validation
	predicted        time.Duration
	predictedP99     time.Duration
	open, closedSend measure.Stats // response time (open) and service time (closed loop)
	closedResp       measure.Stats
	openID, closedID int64
	deviation        float64
	pass             bool
}

func (v validation) flags(store string, model string) *runFlags {
	f := &runFlags{
		driver: "sim", store: store, quiet: true, clients: 16, batch: 100, rate: v.rate,
		model: model, arrival: "constant", maxBacklog: 1_000_000, seed: 1,
		name: "validate-" + model, tags: listFlag{"validate"},
		set:       map[string]bool{"rate": true, "clients": true},
		propFiles: listFlag{"workloadc"},
		props: listFlag{
			"recordcount=1000", "fieldcount=1", "fieldlength=16", "requestdistribution=uniform",
			fmt.Sprintf("operationcount=%d", v.ops),
			fmt.Sprintf("sim.capacity=%g", v.capacity),
			fmt.Sprintf("sim.hiccups=%v+%v", v.hiccup.Start, v.hiccup.Duration),
		},
	}
	if model == "closed" {
		f.clients = 1 // one paced client, as a closed-loop tool with a target rate
	}
	return f
}

// run performs the open and the closed-loop run side by side (each on its own
// simulated store) and compares the open one with the model's prediction.
func (v validation) run(ctx context.Context, e *env, store string) (*validationReport, error) {
	secs := float64(v.ops) / v.rate
	fmt.Fprintf(e.stderr, "validate: open model at %g ops/s, %d operations (~%.0f s), sim capacity %g ops/s, hiccup %v for %v\n",
		v.rate, v.ops, secs, v.capacity, v.hiccup.Start, v.hiccup.Duration)
	type result struct {
		model string
		out   *outcome
		err   error
	}
	done := make(chan result, 2)
	for _, model := range []string{"open", "closed"} {
		go func() {
			out, err := perform(ctx, e, v.flags(store, model), true, "dbrig validate ("+model+" loop)")
			done <- result{model, out, err}
		}()
	}
	rep := &validationReport{v: v}
	var errs []error
	for range 2 {
		r := <-done
		if r.err != nil || r.out == nil {
			errs = append(errs, fmt.Errorf("%s-loop run: %w", r.model, r.err))
			continue
		}
		sum, ok := measureSummary(r.out.sums)
		started := r.out.phaseStarted[measure.PhaseMeasure]
		if !ok || started.IsZero() || sum.Overall.Count == 0 {
			errs = append(errs, fmt.Errorf("%s-loop run %d has no measured operations", r.model, r.out.runID))
			continue
		}
		if r.model == "closed" {
			rep.closedID, rep.closedSend, rep.closedResp = r.out.runID, sum.Overall.Service, sum.Overall.Response
			continue
		}
		rep.openID, rep.open = r.out.runID, sum.Overall.Response
		// Arrivals begin when the measure phase starts, counted from the
		// store's origin, from which the hiccup is placed.
		offset := started.Sub(r.out.db.(*sim.DB).Origin())
		model := sim.Model{Capacity: v.capacity, Hiccups: []sim.Hiccup{v.hiccup}}
		pred := model.Predict(sim.ConstantArrivals(int(v.ops), v.rate, offset))
		rep.predicted, rep.predictedP99 = pred.Mean, pred.Percentile(99)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	measured := time.Duration(rep.open.Mean * float64(time.Microsecond))
	rep.deviation = math.Abs(float64(measured-rep.predicted)) / float64(rep.predicted)
	rep.pass = rep.deviation <= tolerance
	return rep, nil
}

func measureSummary(sums []measure.Summary) (measure.Summary, bool) {
	for i := len(sums) - 1; i >= 0; i-- {
		if sums[i].Phase == measure.PhaseMeasure {
			return sums[i], true
		}
	}
	return measure.Summary{}, false
}

func (r *validationReport) print(e *env) {
	us := func(x float64) string { return fmtDur(time.Duration(x * float64(time.Microsecond))) }
	w := e.stdout
	fmt.Fprintf(w, "\n%-44s %10s %10s\n", "", "mean", "p99")
	fmt.Fprintf(w, "%-44s %10s %10s\n", "queue model (predicted response time)", fmtDur(r.predicted), fmtDur(r.predictedP99))
	fmt.Fprintf(w, "%-44s %10s %10s   run %d\n", "dbrig, open model, response time", us(r.open.Mean), us(float64(r.open.P99)), r.openID)
	fmt.Fprintf(w, "%-44s %10s %10s   run %d\n", "closed loop, send time (coordinated omission)", us(r.closedSend.Mean), us(float64(r.closedSend.P99)), r.closedID)
	fmt.Fprintf(w, "%-44s %10s %10s\n", "closed loop, from intended start", us(r.closedResp.Mean), us(float64(r.closedResp.P99)))
	verdict := "PASS"
	if !r.pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "\n%s: measured mean is %.2f%% from the model (tolerance %.0f%%)\n", verdict, 100*r.deviation, 100*tolerance)
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%dµs", d.Microseconds())
	}
}

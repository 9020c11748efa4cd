package experiment

import (
	"context"
	"math"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/run"
)

// Conditional triggers (when: stable): a fault armed at its time fires once
// the system has been stable for stable_for — every second of it with its
// response-time p99 within the baseline band and no failed operation (a
// missing key or a lost compare-and-swap is the workload's doing and does
// not count). The band is the calm before the run's first fault: the mean
// of its per-second p99s + 2σ (analysis.CalmBound, the impact's rule), and
// at least 10 % above the mean (when no fault fired yet: the seconds before
// the fault was armed). The injector sees the seconds as the runner reports
// them (it is a run.Observer behind the store).

// sample is one second of the measure phase.
type sample struct {
	end    time.Time
	p99    int64 // µs, every operation
	failed int64
}

// minBaseline is how many calm seconds the band needs.
const minBaseline = 3

// Interval implements run.Observer: the injector keeps each measure second.
func (in *injector) Interval(iv measure.Interval) {
	if iv.Phase != measure.PhaseMeasure || iv.End.Sub(iv.Start) < 500*time.Millisecond {
		return
	}
	h := measure.NewHistogram()
	var failed int64
	for _, op := range iv.Ops {
		if op.Response != nil {
			h.Merge(op.Response)
		}
		failed += op.Errors - op.Classes[string(errclass.Conflict)] - op.Classes[string(errclass.NotFound)]
	}
	in.mu.Lock()
	in.samples = append(in.samples, sample{end: iv.End, p99: measure.Percentile(h, 99), failed: failed})
	in.mu.Unlock()
}

// Event implements run.Observer.
func (in *injector) Event(run.Event) {}

// band is the upper bound of a calm second's p99, from the seconds before
// the first fault (before armed while none has fired); false while there
// are too few.
func (in *injector) band(armed time.Time) (int64, bool) {
	cut := in.firstFault.Load()
	if cut == 0 {
		cut = armed.UnixNano()
	}
	var p []float64
	for _, s := range in.samples {
		if s.end.UnixNano() <= cut {
			if s.failed == 0 {
				p = append(p, float64(s.p99))
			}
		}
	}
	if len(p) < minBaseline {
		return 0, false
	}
	mean, sd := analysis.MeanSD(p)
	return max(analysis.CalmBound(mean, sd), int64(math.Ceil(1.1*mean))), true
}

// isStable tells whether the seconds that ended after armed cover the last
// d with every one calm.
func (in *injector) isStable(armed time.Time, d time.Duration) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	upper, ok := in.band(armed)
	if !ok {
		return false
	}
	need := int(math.Ceil(d.Seconds()))
	n := 0
	for i := len(in.samples) - 1; i >= 0 && n < need; i-- {
		s := in.samples[i]
		if s.end.Before(armed) || s.failed > 0 || s.p99 > upper {
			return false
		}
		n++
	}
	return n == need
}

// stable waits until the system has been stable for d since armed; false
// when ctx ends first.
func (in *injector) stable(ctx context.Context, armed time.Time, d time.Duration) bool {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for !in.isStable(armed, d) {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	return true
}

// tee passes intervals and events to the injector and then to next (nil: none).
type tee struct {
	in   *injector
	next run.Observer
}

func (t tee) Interval(iv measure.Interval) {
	t.in.Interval(iv)
	if t.next != nil {
		t.next.Interval(iv)
	}
}

func (t tee) Event(ev run.Event) {
	if t.next != nil {
		t.next.Event(ev)
	}
}

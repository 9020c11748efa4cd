package rating

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/sla"
)

// backlogIntervals is how many consecutive seconds the open model's backlog
// must grow before it counts as growing without bound.
const backlogIntervals = 3

// stopper watches an experiment's measure phase from outside the runner
// and cancels the experiment (with a StoppedError as the cause) as soon as
// its outcome is certain: the SLA can no longer hold whatever the remaining
// operations do (sla.Doomed), or the open model's backlog keeps growing
// beyond what the latency limit allows. It passes everything on to next.
type stopper struct {
	sla      sla.SLA
	by       string
	target   float64
	dur      time.Duration
	disabled bool
	cancel   context.CancelCauseFunc
	next     run.Observer

	acc     *measure.Accumulator
	start   time.Time
	backlog []int64
	mu      sync.Mutex
	why     string
}

func newStopper(s sla.SLA, by string, target float64, dur time.Duration, disabled bool, cancel context.CancelCauseFunc, next run.Observer) *stopper {
	return &stopper{sla: s, by: by, target: target, dur: dur, disabled: disabled, cancel: cancel, next: next,
		acc: measure.NewAccumulator(measure.PhaseMeasure)}
}

// reason is why the experiment was stopped ("" if it was not).
func (s *stopper) reason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why
}

// Interval implements run.Observer.
func (s *stopper) Interval(iv measure.Interval) {
	if s.next != nil {
		s.next.Interval(iv)
	}
	if s.disabled || iv.Phase != measure.PhaseMeasure || s.reason() != "" {
		return
	}
	if s.start.IsZero() {
		s.start = iv.Start
	}
	s.acc.Add(iv)
	sofar := s.acc.Summary(nil)
	why := s.sla.Doomed(sofar, s.expected(sofar, iv.End))
	if why == "" {
		why = s.unbounded(iv)
	}
	if why != "" {
		s.mu.Lock()
		s.why = why
		s.mu.Unlock()
		s.cancel(&StoppedError{Reason: why})
	}
}

// expected is how many operations the whole experiment will complete: the
// target rate over its length (open model), or the rate so far (closed).
func (s *stopper) expected(sofar measure.Summary, now time.Time) int64 {
	if s.by == ByRate {
		return int64(s.target * s.dur.Seconds())
	}
	el := now.Sub(s.start).Seconds()
	if el < 1 {
		return 1 << 62 // too early to tell
	}
	return int64(float64(sofar.Overall.Count) / el * s.dur.Seconds())
}

// unbounded: the open model's backlog grew in each of the last few seconds
// and already holds more work than the tightest latency limit allows to
// wait (at the target rate), so the queued operations will break it.
func (s *stopper) unbounded(iv measure.Interval) string {
	if s.by != ByRate || s.target <= 0 {
		return ""
	}
	s.backlog = append(s.backlog, iv.Backlog)
	n := len(s.backlog)
	if n <= backlogIntervals {
		return ""
	}
	for i := n - backlogIntervals; i < n; i++ {
		if s.backlog[i] <= s.backlog[i-1] {
			return ""
		}
	}
	wait := time.Duration(float64(iv.Backlog) / s.target * float64(time.Second))
	limit := time.Duration(0)
	for _, t := range s.sla.Terms {
		if t.Metric == sla.Latency && (limit == 0 || t.LatencyLimit() < limit) {
			limit = t.LatencyLimit()
		}
	}
	if limit == 0 || wait < limit {
		return ""
	}
	return fmt.Sprintf("the backlog grew for %d seconds in a row to %d operations (%v of work at the target rate, above %v)", backlogIntervals, iv.Backlog, wait.Round(time.Millisecond), limit)
}

// Event implements run.Observer.
func (s *stopper) Event(ev run.Event) {
	if s.next != nil {
		s.next.Event(ev)
	}
}

package run

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dbrig/dbrig/loadmodel"
)

// RateStep is one stretch of an open model's rate schedule (Open.Schedule):
// the settings type of loadmodel, which experiment files decode into.
type RateStep = loadmodel.RateStep

// curve maps the open model's unit-rate arrival epochs (constant: 0, 1, 2…;
// Poisson: sums of exponentials with mean 1) to intended starts: operation
// x is intended when the operations the target rate asks for so far,
// Λ(t) = ∫₀ᵗ rate, reach x. For a constant rate that is x/rate; a schedule
// of holds and linear ramps is solved piece by piece. The same epochs under
// any rate give the same process (Poisson stays Poisson, time-changed).
type curve struct {
	segs []segment
}

// segment is a stretch of linear rate from r0 to r1 (ops/s) over dur,
// beginning at start when x0 operations were due; dur 0 is forever.
type segment struct {
	start, dur time.Duration
	r0, r1     float64
	x0         float64
}

func constantCurve(rate float64) curve { return curve{segs: []segment{{r0: rate, r1: rate}}} }

func scheduleCurve(steps []RateStep) curve {
	var c curve
	var at time.Duration
	var x, prev float64
	for _, s := range steps {
		r0 := s.Rate
		if s.Ramp {
			r0 = prev
		}
		c.segs = append(c.segs, segment{start: at, dur: s.For, r0: r0, r1: s.Rate, x0: x})
		x += (r0 + s.Rate) / 2 * s.For.Seconds()
		at += s.For
		prev = s.Rate
	}
	return c
}

// length is how long the schedule lasts (0: forever).
func (c curve) length() time.Duration {
	last := c.segs[len(c.segs)-1]
	if last.dur == 0 {
		return 0
	}
	return last.start + last.dur
}

// at returns the intended start of epoch x, or false when x lies beyond
// the schedule's end.
func (c curve) at(x float64) (time.Duration, bool) {
	for _, s := range c.segs {
		secs := s.dur.Seconds()
		due := (s.r0 + s.r1) / 2 * secs // operations this segment asks for
		dx := x - s.x0
		if s.dur != 0 && dx >= due {
			continue
		}
		var tau float64 // seconds into the segment
		a := (s.r1 - s.r0) / (2 * secs)
		switch {
		case s.dur == 0 || math.Abs(a) < 1e-12:
			if s.r0 <= 0 {
				continue
			}
			tau = dx / s.r0
		default:
			// r0·τ + a·τ² = dx, in the form that stays exact when a → 0.
			tau = 2 * dx / (s.r0 + math.Sqrt(max(s.r0*s.r0+4*a*dx, 0)))
		}
		return s.start + time.Duration(tau*1e9), true
	}
	return 0, false
}

// due is Λ(t): how many operations the target rate asks for by t.
func (c curve) due(t time.Duration) float64 {
	var x float64
	for _, s := range c.segs {
		if t <= s.start {
			break
		}
		tau := (t - s.start).Seconds()
		if s.dur != 0 {
			tau = min(tau, s.dur.Seconds())
		}
		a := 0.0
		if s.dur != 0 {
			a = (s.r1 - s.r0) / (2 * s.dur.Seconds())
		}
		x = s.x0 + s.r0*tau + a*tau*tau
	}
	return x
}

// rateAt is the target rate at t (0 after the schedule).
func (c curve) rateAt(t time.Duration) float64 {
	for _, s := range c.segs {
		if s.dur == 0 || t < s.start+s.dur {
			if t < s.start {
				return 0
			}
			if s.dur == 0 {
				return s.r0
			}
			f := (t - s.start).Seconds() / s.dur.Seconds()
			return s.r0 + (s.r1-s.r0)*f
		}
	}
	return 0
}

func checkSchedule(steps []RateStep) error {
	peak := 0.0
	for i, s := range steps {
		switch {
		case checkRate("", s.Rate) != nil:
			return checkRate(fmt.Sprintf("schedule step %d rate", i+1), s.Rate)
		case s.For <= 0:
			return &ConfigError{Field: fmt.Sprintf("schedule step %d length", i+1), Value: s.For, Want: "expected a duration > 0"}
		}
		peak = max(peak, s.Rate)
	}
	if peak == 0 {
		return &ConfigError{Field: "schedule", Value: scheduleText(steps), Want: "asks for no operations: expected a step with a rate > 0"}
	}
	return nil
}

func scheduleText(steps []RateStep) string {
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = s.String()
	}
	return strings.Join(parts, ", ")
}

// The rates one dbrig process can pace. Above MaxRate the arrivals alone
// (generated, and dropped when the system falls behind) take longer to
// produce than the run lasts, so a run would not end on time and could not
// be interrupted promptly; below MinRate the time to the first arrival
// overflows. A distributed run paces up to MaxRate per worker process.
const (
	MaxRate = 1e7
	MinRate = 1e-3
)

// checkRate checks a target rate; zero is allowed where zero means "none"
// (a closed model as fast as it goes, a pause in a schedule).
func checkRate(field string, r float64) error {
	switch {
	case r < 0 || math.IsNaN(r) || math.IsInf(r, 0):
		return &ConfigError{Field: field, Value: r, Want: "expected ops/s ≥ 0"}
	case r != 0 && (r < MinRate || r > MaxRate):
		return &ConfigError{Field: field, Value: r, Want: fmt.Sprintf("expected ops/s from %g to %g (what one dbrig process can pace; spread more over --workers)", MinRate, MaxRate)}
	}
	return nil
}

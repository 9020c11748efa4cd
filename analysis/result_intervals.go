package analysis

import "time"

// IntervalResult is one operation (or OVERALL) in one stored second of a
// run, with its rates as the throughput and error charts draw them.
type IntervalResult struct {
	Phase          string
	T              time.Duration // interval end − run start
	Start          time.Time
	Length         time.Duration
	Op             string
	Count, Errors  int64
	Throughput     float64 // Count per second of the interval, as the throughput chart has it
	ErrorsPerSec   float64
	MeanUS         float64
	P50US, P95US   int64
	P99US, MaxUS   int64
	SvcP99US       int64
	Dropped        int64   // OVERALL rows only
	Backlog        int64   // OVERALL rows only
	TargetRate     float64 // OVERALL rows only (0: none)
	DispatchLagP99 int64   // OVERALL rows only, µs
}

// IntervalsOf is every stored second of a run, in stored order.
func IntervalsOf(r Run) []IntervalResult {
	out := make([]IntervalResult, 0, len(r.Intervals))
	for _, iv := range r.Intervals {
		ir := IntervalResult{Phase: iv.Phase, T: iv.T, Start: iv.Start, Length: iv.Length, Op: iv.Op,
			Count: iv.Count, Errors: iv.Errors, MeanUS: iv.MeanUS, P50US: iv.P50US, P95US: iv.P95US, P99US: iv.P99US,
			MaxUS: iv.MaxUS, SvcP99US: iv.SvcP99US, Dropped: iv.Dropped, Backlog: iv.Backlog, TargetRate: iv.TargetRate,
			DispatchLagP99: iv.LagP99US}
		if iv.Length > 0 {
			ir.Throughput = float64(perSecond(iv.Count, iv))
			ir.ErrorsPerSec = float64(perSecond(iv.Errors, iv))
		}
		out = append(out, ir)
	}
	return out
}

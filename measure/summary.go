package measure

import (
	"fmt"
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// OverallOp is the Op name of Summary.Overall, and of the rows that merge
// all operations wherever intervals and summaries are stored or shown.
const OverallOp = "OVERALL"

// Accumulator merges the intervals of one phase as they arrive, so a long run
// need not keep every interval's histograms in memory.
type Accumulator struct {
	phase   string
	ops     []*OpSummary
	index   map[string]int
	sum     Summary
	started bool
}

// NewAccumulator returns an Accumulator for phase. ops, when given, fixes the
// order of Summary.Ops (the workload's order); ops not in it are appended in
// the order they are first seen.
func NewAccumulator(phase string, ops ...string) *Accumulator {
	a := &Accumulator{phase: phase, index: make(map[string]int)}
	for _, op := range ops {
		a.op(op)
	}
	return a
}

func (a *Accumulator) op(name string) *OpSummary {
	if i, ok := a.index[name]; ok {
		return a.ops[i]
	}
	a.index[name] = len(a.ops)
	s := &OpSummary{Op: name}
	a.ops = append(a.ops, s)
	return s
}

// Add merges one interval. Intervals of another phase are ignored, so all
// intervals of a run can be fed to each phase's Accumulator.
func (a *Accumulator) Add(iv Interval) {
	if iv.Phase != a.phase {
		return
	}
	if !a.started || iv.Start.Before(a.sum.Start) {
		a.sum.Start = iv.Start
	}
	if !a.started || iv.End.After(a.sum.End) {
		a.sum.End = iv.End
	}
	a.started = true
	a.sum.Dropped += iv.Dropped
	a.sum.Late += iv.Late
	if iv.Lag != nil {
		a.sum.LagHist = mergeHist(a.sum.LagHist, iv.Lag)
	}
	for _, o := range iv.Ops {
		s := a.op(o.Op)
		s.Count += o.Count
		s.Errors += o.Errors
		for c, n := range o.Classes {
			if s.Classes == nil {
				s.Classes = make(map[string]int64)
			}
			s.Classes[c] += n
		}
		s.ResponseHist = mergeHist(s.ResponseHist, o.Response)
		s.ServiceHist = mergeHist(s.ServiceHist, o.Service)
	}
}

func mergeHist(dst, src *hdr.Histogram) *hdr.Histogram {
	if dst == nil {
		dst = NewHistogram()
	}
	if src != nil {
		dst.Merge(src)
	}
	return dst
}

// Summary returns the merged phase, with errs as its error samples. Ops
// without a completed operation are left out; Throughput is successful
// operations per second of the phase's wall time (first interval start to
// last interval end).
func (a *Accumulator) Summary(errs []ErrorSample) Summary {
	sum := a.sum
	sum.Phase = a.phase
	sum.Errors = errs
	secs := sum.End.Sub(sum.Start).Seconds()
	overall := OpSummary{Op: OverallOp, ResponseHist: NewHistogram(), ServiceHist: NewHistogram()}
	for _, s := range a.ops {
		if s.Count == 0 {
			continue
		}
		o := finish(*s, secs)
		sum.Ops = append(sum.Ops, o)
		overall.Count += o.Count
		overall.Errors += o.Errors
		for c, n := range o.Classes {
			if overall.Classes == nil {
				overall.Classes = make(map[string]int64)
			}
			overall.Classes[c] += n
		}
		overall.ResponseHist.Merge(o.ResponseHist)
		overall.ServiceHist.Merge(o.ServiceHist)
	}
	sum.Overall = finish(overall, secs)
	if sum.LagHist != nil {
		sum.LagHist = mergeHist(nil, sum.LagHist) // a copy: the Accumulator goes on adding
		sum.Lag = StatsOf(sum.LagHist)
	}
	return sum
}

func finish(s OpSummary, secs float64) OpSummary {
	// Copy the histograms so the Accumulator can go on adding.
	s.ResponseHist = mergeHist(nil, s.ResponseHist)
	s.ServiceHist = mergeHist(nil, s.ServiceHist)
	s.Throughput = Rate(s.Count, s.Errors, secs)
	s.Response = StatsOf(s.ResponseHist)
	s.Service = StatsOf(s.ServiceHist)
	return s
}

// Rate is the throughput of count operations of which errors failed, over
// secs seconds: only the successful ones count (a failed operation did no
// work for the user); 0 without time.
func Rate(count, errors int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(max(count-errors, 0)) / secs
}

// ErrorRate is the share (0..1) of o's completed operations that failed; 0
// without operations.
func (o OpSummary) ErrorRate() float64 {
	if o.Count == 0 {
		return 0
	}
	return float64(o.Errors) / float64(o.Count)
}

// FailedShare is the share of failed operations above which a phase mostly
// failed: its figures describe errors, not the system's work, and the run is
// not done but failed (see MostlyFailed).
const FailedShare = 0.5

// MostlyFailed tells whether more than FailedShare of the phase's operations
// failed; the error says how many, for the run's status message.
func (s Summary) MostlyFailed() error {
	o := s.Overall
	if o.Count == 0 || o.ErrorRate() <= FailedShare {
		return nil
	}
	return &FailedError{Phase: s.Phase, Count: o.Count, Errors: o.Errors}
}

// FailedError is a phase whose operations mostly failed (MostlyFailed).
type FailedError struct {
	Phase         string
	Count, Errors int64
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("%s of operations failed (%d of %d in the %s phase; a run fails above %.0f%%)",
		SharePct(e.Errors, e.Count), e.Errors, e.Count, e.Phase, 100*FailedShare)
}

// SharePct prints n of total in percent, whole unless rounding would claim
// what is not so: 9996 of 10000 failed is "99.9%", not "100%" while some
// succeeded, and 5004 of 10000 is "50.0%", not "50%" (the threshold itself).
func SharePct(n, total int64) string {
	if total == 0 {
		return "0%"
	}
	pct := 100 * float64(n) / float64(total)
	r := math.Round(pct)
	if (r == 100 && n < total) || (r == 0 && n > 0) || r == 100*FailedShare && pct != r {
		return fmt.Sprintf("%.1f%%", math.Floor(pct*10)/10)
	}
	return fmt.Sprintf("%.0f%%", r)
}

// Summarize merges the intervals of phase exactly (HDR histograms add) into
// a Summary; intervals of other phases are skipped. Ops are ordered as first
// seen; use an Accumulator with the workload's op names to fix the order.
func Summarize(phase string, intervals []Interval, errs []ErrorSample) Summary {
	a := NewAccumulator(phase)
	for _, iv := range intervals {
		a.Add(iv)
	}
	return a.Summary(errs)
}

// StatsOf computes the figures of one histogram (zero for an empty one).
// Percentiles are nearest-rank (see Percentile); all figures come from one
// walk over the counters (walkHist), equal to what hdrhistogram-go's Mean,
// Min, Max and ValueAtPercentiles give, which walk them once each.
func StatsOf(h *hdr.Histogram) Stats {
	if h == nil || h.TotalCount() == 0 {
		return Stats{}
	}
	var p [6]int64
	w := percentiles(h, p[:], 50, 90, 95, 99, 99.9, 99.99)
	return Stats{
		Count: h.TotalCount(),
		Mean:  w.mean,
		Min:   w.min,
		P50:   p[0],
		P90:   p[1],
		P95:   p[2],
		P99:   p[3],
		P999:  p[4],
		P9999: p[5],
		Max:   w.max,
	}
}

// Percentile returns the q-th percentile (0 < q ≤ 100) of h by nearest rank:
// the (highest equivalent) value of the ⌈q/100 · n⌉-th smallest recorded
// value, as Java's HdrHistogram computes it; 0 for a nil or empty histogram.
//
// hdrhistogram-go's ValueAtPercentile rounds the rank to the nearest integer
// instead, which under-reports: it gives the 6th of 7 values as p90 (6/7 is
// 86%), and p99.99 of 100,003 values one rank low.
func Percentile(h *hdr.Histogram, q float64) int64 {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	// One figure: the library's walk stops at it and copies nothing, which
	// is cheaper than walkHist's copy of the counters.
	asked := rankPercent(q, float64(h.TotalCount()))
	return h.ValueAtPercentiles([]float64{asked})[asked]
}

// percentiles puts the nearest-rank value of each q (ascending) in out, in
// the one walk of h's counters that also finds the mean, min and max. The
// count each q must reach is the one ValueAtPercentiles computes (it rounds
// q/100·n + 0.5 down) for rankPercent's percentile, so the walk finds what
// ValueAtPercentiles does, to the bit.
func percentiles(h *hdr.Histogram, out []int64, qs ...float64) histWalk {
	n := float64(h.TotalCount())
	var buf [8]int64
	counts := buf[:0]
	for _, q := range qs {
		counts = append(counts, int64(rankPercent(q, n)/100*n+0.5))
	}
	return walkHist(h, counts, out)
}

// rankPercent is the percentile to ask ValueAtPercentiles for so that it
// finds the q-th percentile of n values by nearest rank: the rank rounded up,
// (rank − ¼)/n, far from any edge of the library's rounding to the nearest.
func rankPercent(q, n float64) float64 {
	q = min(max(q, 0), 100)
	// Shrink the product by far more than its rounding error, far less than
	// any real fraction of a rank, so 99.99% of 100,000 is rank 99,990.
	rank := max(1, math.Ceil(q/100*n*(1-1e-13)))
	return (rank - 0.25) / n * 100
}

// Measured returns the last measure phase of sums: the one summaries,
// comparisons and verdicts are about.
func Measured(sums []Summary) (Summary, bool) {
	for i := len(sums) - 1; i >= 0; i-- {
		if sums[i].Phase == PhaseMeasure {
			return sums[i], true
		}
	}
	return Summary{}, false
}

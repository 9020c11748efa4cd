// Package measure records operation latencies without coordinated omission:
// every operation is recorded with its intended start, actual start and end,
// into per-client HDR histograms that are swapped every second into an
// Interval. Summaries are exact merges of intervals.
package measure

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: 1 µs to 1 h at 3 significant digits; values are microseconds.
const (
	HistMinUS   = 1
	HistMaxUS   = int64(time.Hour / time.Microsecond)
	HistSigFigs = 3
)

// NewHistogram returns an empty histogram with dbrig's standard range.
func NewHistogram() *hdr.Histogram { return hdr.New(HistMinUS, HistMaxUS, HistSigFigs) }

// Op is the index of an operation type in the names a Recorder was made with.
type Op int

// Phase names. Only PhaseMeasure counts in summaries.
const (
	PhaseLoad    = "load"
	PhaseWarmup  = "warmup"
	PhaseMeasure = "measure"
)

// Phases returns the phase names in the order a run performs them: the
// one list of them (merges, reports and event streams follow it).
func Phases() []string { return []string{PhaseLoad, PhaseWarmup, PhaseMeasure} }

// PhaseRank is p's place in Phases (0 for the load phase), or -1 when p
// names no phase.
func PhaseRank(p string) int {
	for i, ph := range Phases() {
		if ph == p {
			return i
		}
	}
	return -1
}

// Interval is one second (the last one may be shorter) of measurements.
type Interval struct {
	Phase   string
	Start   time.Time
	End     time.Time
	Ops     []OpInterval // one entry per op type that completed operations
	Dropped int64        // open model: operations dropped at the backlog limit or not started by the phase's end
	Late    int64        // of Dropped, those still waiting for a client when the phase ended
	Backlog int64        // open model: operations waiting for a client at End
	// Lag is the dispatch lag of the interval's operations: how much later
	// than it could have, dbrig started each (nil without operations).
	Lag *hdr.Histogram
	// TargetRate is the rate (ops/s) the load model asked for over the
	// interval: the schedule's, so achieved and asked can be compared; 0 when
	// the model runs as fast as it can.
	TargetRate float64
}

// OpInterval is one operation type within an Interval.
type OpInterval struct {
	Op      string
	Count   int64            // completed operations, errors included
	Errors  int64            // operations that returned an error
	Classes map[string]int64 // errors by errclass.Class
	// Response is end − intended start ("latency"); Service is end − actual start.
	Response *hdr.Histogram
	Service  *hdr.Histogram
}

// ErrorSample is a distinct error message seen during a phase.
type ErrorSample struct {
	Op      string
	Class   string
	Message string
	Count   int64
}

// Stats are the figures of one histogram, in microseconds.
type Stats struct {
	Count                                     int64
	Mean                                      float64
	Min, P50, P90, P95, P99, P999, P9999, Max int64
}

// OpSummary is one operation type over a whole phase.
type OpSummary struct {
	Op         string
	Count      int64
	Errors     int64
	Classes    map[string]int64
	Throughput float64 // successful operations (Count − Errors) per second of the phase
	Response   Stats
	Service    Stats
	// Merged histograms, kept so they can be stored and merged again exactly.
	ResponseHist *hdr.Histogram
	ServiceHist  *hdr.Histogram
}

// Summary is one phase of a run.
type Summary struct {
	Phase   string
	Start   time.Time
	End     time.Time
	Ops     []OpSummary // in the workload's op order
	Overall OpSummary   // all operation types merged, Op "OVERALL"
	Records int64       // load phase: records inserted (its operations are batches)
	Wanted  int64       // load phase: records the data set was to have (more than Records: partial)
	// Lag is the dispatch lag over the phase: the load generator's own
	// lateness, part of every response time (see Shard.RecordReady).
	Lag     Stats
	LagHist *hdr.Histogram
	Dropped int64
	Late    int64 // of Dropped, those still waiting for a client when the phase ended (the rest met a full backlog)
	Errors  []ErrorSample
}

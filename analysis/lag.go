package analysis

import "github.com/dbrig/dbrig/measure"

// LagShare is the part of the response time p50 above which the dispatch
// lag p99 means the load generator, not the system, shaped the latencies.
const LagShare = 0.10

// GeneratorLate tells whether dbrig itself was a bottleneck of a phase:
// its dispatch lag p99 (how much later than it could have it started
// operations while a client was free) exceeds LagShare of the response
// time p50. Response times that small are then partly the harness's own.
func GeneratorLate(s measure.Summary) bool {
	return s.Lag.P99 > 0 && float64(s.Lag.P99) > LagShare*float64(s.Overall.Response.P50)
}

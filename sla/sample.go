package sla

import "math"

// MinSample is how many operations an experiment needs before its
// latency terms say something about the store rather than about a handful
// of operations: tail operations beyond the strictest percentile. The
// nearest-rank Q-th percentile of n operations is decided by the
// ⌈(100−Q)/100·n⌉ slowest ones; with n = 62 and p95 that is the 4th-slowest
// operation, so one pause of the machine decides the verdict. With tail = 10
// a p95 term needs 200 operations, p99 1,000 and p99.9 10,000.
//
// share gives, for a per-operation term (READ.p99), the fraction of all
// operations that are of that type (0 or unknown: 1); the count returned
// is of all operations. Terms other than latency need no sample: their
// limits are counted, not estimated. MinSample is 0 when there is no
// latency term or tail ≤ 0.
func (s SLA) MinSample(tail int, share func(op string) float64) int64 {
	if tail <= 0 {
		return 0
	}
	need := 0.0
	for _, t := range s.Terms {
		if t.Metric != Latency || t.Percentile <= 0 || t.Percentile >= 100 {
			continue
		}
		n := float64(tail) / (1 - t.Percentile/100)
		if t.Op != "" && share != nil {
			if f := share(t.Op); f > 0 && f < 1 {
				n /= f
			}
		}
		need = math.Max(need, n)
	}
	return int64(math.Ceil(need * (1 - 1e-12))) // 10/(1−0.999) is 10000.000000001 in floating point
}

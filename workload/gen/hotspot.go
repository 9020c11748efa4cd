package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Hotspot returns integers in [min, max] where a fraction hotOpn of the draws
// fall uniformly in the hot set, the first hotSet fraction of the range, and
// the rest uniformly in the cold set after it (YCSB's HotspotIntegerGenerator).
type Hotspot struct {
	r              *rand.Rand
	min, hot, cold int64
	hotOpn         float64
}

// NewHotspot returns a hotspot generator. YCSB silently replaces a fraction
// outside [0, 1] with 0; here it is an error, as is an empty set that would be
// drawn from.
func NewHotspot(r *rand.Rand, min, max int64, hotSet, hotOpn float64) (*Hotspot, error) {
	if max < min || max-min+1 <= 0 {
		return nil, fmt.Errorf("hotspot: bad range [%d, %d]", min, max)
	}
	if !(hotSet >= 0 && hotSet <= 1) {
		return nil, fmt.Errorf("hotspot: hot set fraction %v, expected a number in [0, 1]", hotSet)
	}
	if !(hotOpn >= 0 && hotOpn <= 1) {
		return nil, fmt.Errorf("hotspot: hot operation fraction %v, expected a number in [0, 1]", hotOpn)
	}
	n := max - min + 1
	hot := int64(float64(n) * hotSet) // truncated, as YCSB
	h := &Hotspot{r: r, min: min, hot: hot, cold: n - hot, hotOpn: hotOpn}
	if hot == 0 && hotOpn > 0 {
		return nil, fmt.Errorf("hotspot: hot set of %v × %d items is empty but gets %v of the operations", hotSet, n, hotOpn)
	}
	if h.cold == 0 && hotOpn < 1 {
		return nil, fmt.Errorf("hotspot: cold set is empty but gets %v of the operations", 1-hotOpn)
	}
	return h, nil
}

// Next returns the next value.
func (h *Hotspot) Next() int64 {
	if h.r.Float64() < h.hotOpn {
		return h.min + h.r.Int64N(h.hot)
	}
	return h.min + h.hot + h.r.Int64N(h.cold)
}

// Exponential draws from an exponential distribution with rate gamma
// (YCSB's ExponentialGenerator). CoreWorkload subtracts the truncated value
// from the latest key, so recent keys are the most popular.
type Exponential struct {
	r     *rand.Rand
	gamma float64
}

// NewExponential returns a generator such that percentile % of the values
// fall below rng (YCSB: gamma = −ln(1 − percentile/100) / range).
func NewExponential(r *rand.Rand, percentile, rng float64) (*Exponential, error) {
	if !(percentile > 0 && percentile < 100) {
		return nil, fmt.Errorf("exponential: percentile %v, expected a number > 0 and < 100", percentile)
	}
	if !(rng > 0) || math.IsInf(rng, 1) {
		return nil, fmt.Errorf("exponential: range %v, expected a finite number > 0", rng)
	}
	return &Exponential{r: r, gamma: -math.Log(1-percentile/100) / rng}, nil
}

// NewExponentialMean returns a generator with the given mean (1/gamma).
func NewExponentialMean(r *rand.Rand, mean float64) (*Exponential, error) {
	if !(mean > 0) || math.IsInf(mean, 1) {
		return nil, fmt.Errorf("exponential: mean %v, expected a finite number > 0", mean)
	}
	return &Exponential{r: r, gamma: 1 / mean}, nil
}

// Float returns the next value.
func (e *Exponential) Float() float64 {
	// 1−Float64() is in (0, 1], so the log is finite (Java's nextDouble can
	// return 0 and then YCSB yields +Inf).
	return -math.Log(1-e.r.Float64()) / e.gamma
}

// Next returns the next value truncated to an integer, as YCSB's
// nextValue().intValue().
func (e *Exponential) Next() int64 { return int64(e.Float()) }

// Mean returns 1/gamma.
func (e *Exponential) Mean() float64 { return 1 / e.gamma }

// Package machine measures how steady this machine's speed is. On a shared
// virtual machine the work a core gets done can change from one
// quarter-second to the next without any steal time being reported: on
// one 2-core VM, cache-bound work (a hash map of 8 MB) varied with a
// coefficient of variation of 25 % between 250 ms windows while the
// machine was idle, and register-only arithmetic by 2 %. A store's
// capacity moves with it (PostgreSQL's, per second: 9–17 %), and no
// rating can be steadier than the machine it runs on, so dbrig measures it
// and says so.
package machine

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"
)

// Steadiness is how much work per window varied.
type Steadiness struct {
	Window  time.Duration `json:"-"`
	Windows int           `json:"windows"` // per kind of work
	// Cache: cache-bound work (a hash map larger than a core's caches),
	// as sensitive to neighbours on a shared host as a database is.
	Cache Variation `json:"cache"`
	// ALU: register-only arithmetic, a control: when it is steady and
	// Cache is not, the clock is not to blame.
	ALU Variation `json:"alu"`
}

// Variation summarizes the operations per second of the windows.
type Variation struct {
	Min       float64 `json:"min"`
	Median    float64 `json:"median"`
	Max       float64 `json:"max"`
	CV        float64 `json:"cv"`         // standard deviation / mean
	MinMedian float64 `json:"min_median"` // Min / Median: the slowest window against a typical one
}

func (s Variation) String() string {
	return fmt.Sprintf("coefficient of variation %.1f%%, slowest window %.0f%% of the median", s.CV*100, s.MinMedian*100)
}

// variationOf summarizes rates (it sorts a copy).
func variationOf(rates []float64) Variation {
	if len(rates) == 0 {
		return Variation{}
	}
	s := slices.Clone(rates)
	slices.Sort(s)
	mean := 0.0
	for _, r := range s {
		mean += r
	}
	mean /= float64(len(s))
	sq := 0.0
	for _, r := range s {
		sq += (r - mean) * (r - mean)
	}
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	out := Variation{Min: s[0], Median: med, Max: s[len(s)-1]}
	if mean > 0 {
		out.CV = math.Sqrt(sq/float64(len(s))) / mean
	}
	if med > 0 {
		out.MinMedian = s[0] / med
	}
	return out
}

// work runs one kind of work for about d and returns its operations.
type work func(d time.Duration) int

// MeasureSteadiness alternates windows of cache-bound and register-only
// work on one thread for d in all (each kind d/2, in windows of window;
// the first window of each is a warmup and not counted).
func MeasureSteadiness(ctx context.Context, d, window time.Duration) (Steadiness, error) {
	if window <= 0 || d < 4*window {
		return Steadiness{}, fmt.Errorf("machine steadiness: %v in windows of %v: expected a window > 0 and at least 4 windows", d, window)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return measure(ctx, d, window, newCacheWork(8<<20), aluWork)
}

func measure(ctx context.Context, d, window time.Duration, cache, alu work) (Steadiness, error) {
	n := int(d / window / 2)
	var cacheRates, aluRates []float64
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return Steadiness{}, err
		}
		for _, k := range []struct {
			w     work
			rates *[]float64
		}{{cache, &cacheRates}, {alu, &aluRates}} {
			start := time.Now()
			ops := k.w(window)
			if i > 0 {
				*k.rates = append(*k.rates, float64(ops)/time.Since(start).Seconds())
			}
		}
	}
	return Steadiness{Window: window, Windows: len(cacheRates), Cache: variationOf(cacheRates), ALU: variationOf(aluRates)}, nil
}

// chunk is how many operations run between two clock reads.
const chunk = 1024

// newCacheWork updates random entries of a hash map of about size bytes.
func newCacheWork(size int) work {
	keys := uint64(size / 16)
	m := make(map[uint64]uint64, keys)
	x := uint64(1)
	return func(d time.Duration) int {
		start, ops := time.Now(), 0
		for time.Since(start) < d {
			for range chunk {
				x = x*6364136223846793005 + 1442695040888963407
				m[(x>>20)%keys] += x
			}
			ops += chunk
		}
		return ops
	}
}

func aluWork(d time.Duration) int {
	start, ops, x := time.Now(), 0, uint64(1)
	for time.Since(start) < d {
		for range chunk * 16 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		ops += chunk * 16
	}
	if x == 0 { // never: it keeps the loop's result in use
		ops++
	}
	return ops
}

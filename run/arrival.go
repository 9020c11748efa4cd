package run

import (
	"math/rand/v2"
	"time"
)

// arrivals yields the intended start offsets (from the phase start) of the
// open model's operations.
type arrivals struct {
	poisson bool
	rate    float64 // ops per nanosecond
	k       int64   // constant: index of the next arrival
	t       float64 // poisson: offset of the next arrival in ns
	rng     *rand.Rand
}

func newArrivals(kind string, ratePerSec float64, seed int64) *arrivals {
	a := &arrivals{poisson: kind == Poisson, rate: ratePerSec / 1e9}
	if a.poisson {
		a.rng = rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
		a.t = a.rng.ExpFloat64() / a.rate
	}
	return a
}

// next returns the offset of the next arrival. Constant arrivals are computed
// from their index, not summed, so they never drift.
func (a *arrivals) next() time.Duration {
	if a.poisson {
		t := a.t
		a.t += a.rng.ExpFloat64() / a.rate
		return time.Duration(t)
	}
	t := float64(a.k) / a.rate
	a.k++
	return time.Duration(t)
}

// seedFor derives an independent seed for stream (clients, loaders,
// arrivals) and index i from the run's seed (splitmix64 finaliser).
func seedFor(seed int64, stream, i int) int64 {
	z := uint64(seed) + uint64(stream)<<32 + uint64(i)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return int64(z ^ (z >> 31))
}

const (
	streamClients = iota + 1
	streamLoaders
	streamArrivals
)

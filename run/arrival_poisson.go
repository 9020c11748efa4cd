package run

import "math/rand/v2"

// PoissonName names the Poisson arrival process.
const PoissonName = "poisson"

// Poisson arrivals have independent, exponentially distributed gaps with
// mean 1/rate (seeded, so a run can be repeated exactly). Under a rate
// schedule they form an inhomogeneous Poisson process.
type Poisson struct{}

// Name implements Arrival.
func (Poisson) Name() string { return PoissonName }

func (Poisson) epochs(seed int64) func() float64 {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	x := rng.ExpFloat64()
	return func() float64 {
		cur := x
		x += rng.ExpFloat64()
		return cur
	}
}

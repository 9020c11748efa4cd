package run

import (
	"math/rand/v2"
	"time"
)

// PoissonName names the Poisson arrival process.
const PoissonName = "poisson"

// Poisson arrivals have independent, exponentially distributed gaps with
// mean 1/rate (seeded, so a run can be repeated exactly).
type Poisson struct{}

// Name implements Arrival.
func (Poisson) Name() string { return PoissonName }

func (Poisson) offsets(rate float64, seed int64) func() time.Duration {
	perNS := rate / 1e9
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	t := rng.ExpFloat64() / perNS
	return func() time.Duration {
		cur := t
		t += rng.ExpFloat64() / perNS
		return time.Duration(cur)
	}
}

package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// chiSquared tests observed counts against probabilities pmf (which must sum
// to ~1) and returns an error when the fit is rejected at significance 0.001.
// Bins with an expected count below 5 are merged, as the test requires.
func chiSquared(observed []int64, pmf []float64) error {
	var total int64
	for _, o := range observed {
		total += o
	}
	var stat float64
	bins := 0
	var accO, accE float64
	flush := func() {
		if accE > 0 {
			d := accO - accE
			stat += d * d / accE
			bins++
		}
		accO, accE = 0, 0
	}
	for i := range pmf {
		accO += float64(observed[i])
		accE += pmf[i] * float64(total)
		if accE >= 5 {
			flush()
		}
	}
	if accE > 0 || accO > 0 { // remainder joins the last bin's statistics
		if accE == 0 {
			return fmt.Errorf("chi-squared: %v observations where none are expected", accO)
		}
		flush()
	}
	df := bins - 1
	if df < 1 {
		return fmt.Errorf("chi-squared: only %d bins", bins)
	}
	crit := chiCritical(df)
	if stat > crit {
		return fmt.Errorf("chi-squared %.1f > critical %.1f (df %d, p < 0.001)", stat, crit, df)
	}
	return nil
}

// chiCritical is the 0.999 quantile of the chi-squared distribution with df
// degrees of freedom (Wilson–Hilferty; accurate to a few percent for df >= 3,
// and conservative-enough below for our use).
func chiCritical(df int) float64 {
	const z = 3.0902 // standard normal 0.999 quantile
	k := float64(df)
	c := 1 - 2/(9*k) + z*math.Sqrt(2/(9*k))
	return k * c * c * c
}

// counts draws n values from next and counts them in [0, size); a value
// outside is reported.
func counts(size int, n int, next func() int64, offset int64) ([]int64, error) {
	c := make([]int64, size)
	for i := 0; i < n; i++ {
		v := next() - offset
		if v < 0 || v >= int64(size) {
			return nil, fmt.Errorf("value %d outside [%d, %d)", v+offset, offset, offset+int64(size))
		}
		c[v]++
	}
	return c, nil
}

// grayPMF is the pmf of Gray et al.'s zipfian method ("Quickly generating
// billion-record synthetic databases", as YCSB implements it) over items
// 0..k-1 of a generator with n items, constant theta and normalising
// constant zetan, computed from the formulas alone — never from a
// generator's internal state, so a wrong eta or alpha in the code cannot
// pass. Item 0 takes u < 1/ζn, item 1 takes u < (1+0.5^θ)/ζn, and item j ≥ 2
// the u for which ⌊n·(η·u − η + 1)^(1/(1−θ))⌋ = j.
func grayPMF(n, k int64, theta, zetan float64) []float64 {
	zeta2 := 1 + math.Pow(2, -theta)
	eta := (1 - math.Pow(2/float64(n), 1-theta)) / (1 - zeta2/zetan)
	p := make([]float64, k)
	u1 := 1 / zetan
	u2 := (1 + math.Pow(0.5, theta)) / zetan
	p[0] += u1
	p[1] += u2 - u1
	g := func(x float64) float64 { return (math.Pow(x/float64(n), 1-theta)-1)/eta + 1 }
	for j := int64(0); j < k; j++ {
		lo, hi := math.Max(g(float64(j)), u2), math.Min(g(float64(j+1)), 1)
		if hi > lo {
			p[j] += hi - lo
		}
	}
	return p
}

// zipfPMF is the exact zipfian pmf: P(k) = (k+1)^-θ / ζ(n).
func zipfPMF(n int64, theta float64) []float64 {
	p := make([]float64, n)
	zeta := zetaSum(0, n, theta, 0)
	for k := range p {
		p[k] = math.Pow(float64(k+1), -theta) / zeta
	}
	return p
}

package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// DefaultZipfianConstant is YCSB's ZipfianGenerator.ZIPFIAN_CONSTANT.
const DefaultZipfianConstant = 0.99

// zetaExactTerms is where Zeta switches from summing every term to the
// Euler–Maclaurin formula; below it the plain sum is cheap anyway.
const zetaExactTerms = 64

// Zeta returns Σ_{i=1..n} i^-theta, the normalising constant of a zipfian
// distribution over n items.
//
// YCSB sums all n terms, which takes seconds at 100 M items. Here the first
// terms are summed and the tail Σ_{i=m..n} is given by the Euler–Maclaurin
// formula (integral, end-point average and three Bernoulli corrections); for
// m = 64 the error of the tail is below 1e-16, so the result matches the
// plain sum to double precision at any n, in constant time.
func Zeta(n int64, theta float64) float64 {
	if n <= 2*zetaExactTerms {
		return zetaSum(0, n, theta, 0)
	}
	const m = zetaExactTerms
	s := zetaSum(0, m-1, theta, 0)
	a, b := float64(m), float64(n)
	var integral float64
	if theta == 1 {
		integral = math.Log(b / a)
	} else {
		// a^(1-θ)·(e^((1-θ)·ln(b/a)) − 1)/(1−θ), with expm1 so θ near 1
		// loses no digits.
		k := 1 - theta
		integral = math.Pow(a, k) * math.Expm1(k*math.Log(b/a)) / k
	}
	f := func(x float64) float64 { return math.Pow(x, -theta) }
	// Odd derivatives of x^-θ: f'(x) = -θ x^(-θ-1), f'''(x) = -θ(θ+1)(θ+2) x^(-θ-3), ...
	d1 := func(x float64) float64 { return -theta * math.Pow(x, -theta-1) }
	d3 := func(x float64) float64 { return -theta * (theta + 1) * (theta + 2) * math.Pow(x, -theta-3) }
	d5 := func(x float64) float64 {
		return -theta * (theta + 1) * (theta + 2) * (theta + 3) * (theta + 4) * math.Pow(x, -theta-5)
	}
	s += integral + (f(a)+f(b))/2 +
		(d1(b)-d1(a))/12 - (d3(b)-d3(a))/720 + (d5(b)-d5(a))/30240
	return s
}

// zetaSum adds the terms for items st+1..n to initial (YCSB's zetastatic).
func zetaSum(st, n int64, theta, initial float64) float64 {
	sum := initial
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// Zipfian returns integers in [min, max] where min is the most popular, min+1
// the next, and so on, following YCSB's ZipfianGenerator (Gray et al.,
// "Quickly Generating Billion-Record Synthetic Databases", SIGMOD 1994).
type Zipfian struct {
	r                         *rand.Rand
	base, items               int64
	theta, alpha, zeta2, half float64
	zetan, eta                float64
	countForZeta              int64
}

// NewZipfian returns a zipfian generator over [0, items) with constant theta
// (YCSB: 0.99), which must be in (0, 1).
func NewZipfian(r *rand.Rand, items int64, theta float64) (*Zipfian, error) {
	return NewZipfianRange(r, 0, items-1, theta)
}

// NewZipfianRange returns a zipfian generator over [min, max].
func NewZipfianRange(r *rand.Rand, min, max int64, theta float64) (*Zipfian, error) {
	if max < min || max-min+1 <= 0 {
		return nil, fmt.Errorf("zipfian: bad range [%d, %d]", min, max)
	}
	if !(theta > 0 && theta < 1) {
		return nil, fmt.Errorf("zipfian: constant %v, expected a number > 0 and < 1", theta)
	}
	n := max - min + 1
	return newZipfian(r, min, n, theta, Zeta(n, theta)), nil
}

func newZipfian(r *rand.Rand, base, items int64, theta, zetan float64) *Zipfian {
	z := &Zipfian{
		r: r, base: base, items: items, theta: theta,
		alpha: 1 / (1 - theta),
		zeta2: zetaSum(0, 2, theta, 0),
		half:  math.Pow(0.5, theta),
	}
	z.setZeta(items, zetan)
	return z
}

func (z *Zipfian) setZeta(n int64, zetan float64) {
	z.countForZeta, z.zetan = n, zetan
	z.eta = (1 - math.Pow(2/float64(n), 1-z.theta)) / (1 - z.zeta2/zetan)
}

// Next returns the next value in [min, max].
func (z *Zipfian) Next() int64 { return z.NextN(z.items) }

// NextN draws from the first n items (YCSB's nextLong(itemcount)); the
// skewed-latest generator uses it as the number of records grows. When n grows
// a little, zeta is extended term by term as YCSB does; otherwise it is
// recomputed, which Zeta makes cheap. Unlike YCSB, eta uses the current n
// rather than the item count at construction, as Gray's formula asks.
func (z *Zipfian) NextN(n int64) int64 {
	if n <= 1 {
		return z.base
	}
	if n != z.countForZeta {
		if n > z.countForZeta && n-z.countForZeta <= zetaExactTerms {
			z.setZeta(n, zetaSum(z.countForZeta, n, z.theta, z.zetan))
		} else {
			z.setZeta(n, Zeta(n, z.theta))
		}
	}
	u := z.r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return z.base
	}
	if uz < 1+z.half {
		return z.base + 1
	}
	ret := int64(float64(n) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	if ret >= n { // u is < 1, but rounding can reach n
		ret = n - 1
	}
	return z.base + ret
}

// YCSB's ScrambledZipfianGenerator draws from a zipfian over a huge item space
// and hashes into the real one, so that popular keys are spread out and adding
// keys does not change which are popular. Its precomputed zeta is kept as is
// (it is zeta(1e10, 0.99), although the item count was later raised to 1e16):
// with it key popularity matches YCSB's exactly.
const (
	scrambledItemCount = 10_000_000_000_000_000
	scrambledZetan     = 26.46902820178302
)

// ScrambledZipfian returns integers in [min, max] with zipfian popularity
// scattered over the range by an FNV hash (YCSB's ScrambledZipfianGenerator).
type ScrambledZipfian struct {
	z   *Zipfian
	min int64
	n   uint64
}

// NewScrambledZipfian returns a scrambled zipfian generator over [min, max].
// For a constant other than 0.99 YCSB recomputes zeta over 1e16 items (which
// never finishes); here Zeta does it in microseconds.
func NewScrambledZipfian(r *rand.Rand, min, max int64, theta float64) (*ScrambledZipfian, error) {
	if max < min || max-min+1 <= 0 {
		return nil, fmt.Errorf("scrambled zipfian: bad range [%d, %d]", min, max)
	}
	if !(theta > 0 && theta < 1) {
		return nil, fmt.Errorf("scrambled zipfian: constant %v, expected a number > 0 and < 1", theta)
	}
	// YCSB: new ZipfianGenerator(0, ITEM_COUNT, ...), i.e. ITEM_COUNT+1 items.
	items := int64(scrambledItemCount + 1)
	zetan := scrambledZetan
	if theta != DefaultZipfianConstant {
		zetan = Zeta(items, theta)
	}
	n := max - min + 1
	return &ScrambledZipfian{z: newZipfian(r, 0, items, theta, zetan), min: min, n: uint64(n)}, nil
}

// Next returns the next value in [min, max].
func (s *ScrambledZipfian) Next() int64 {
	// Modulo on the unsigned hash: equal to YCSB's abs(h) % n except for the one
	// hash value whose Java abs stays negative.
	return s.min + int64(uint64(FNVHash64(s.z.Next()))%s.n)
}

// FNV-1 64-bit constants, as in YCSB's Utils.
const (
	fnvOffsetBasis64 = 0xCBF29CE484222325
	fnvPrime64       = 1099511628211
)

// FNVHash64 is YCSB's Utils.fnvhash64: FNV-1 over the 8 little-endian bytes of
// v, then Java's Math.abs (so math.MinInt64 stays negative, as in Java).
// CoreWorkload uses it to hash key numbers (insertorder=hashed).
func FNVHash64(v int64) int64 {
	h := uint64(fnvOffsetBasis64)
	for i := 0; i < 8; i++ {
		h ^= uint64(v) & 0xff
		v >>= 8
		h *= fnvPrime64
	}
	s := int64(h)
	if s < 0 {
		s = -s
	}
	return s
}

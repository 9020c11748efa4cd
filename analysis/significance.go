package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// Whether two runs differ is decided on samples, not on one number per run:
// each second of a measure phase is one sample of a metric (its stored
// interval row), and the repeats of a configuration pool their seconds.
// Two samples differ when a Mann-Whitney U test says so at the confidence
// level and a bootstrap confidence interval of the change in medians
// excludes zero; the change is reported with that interval. Seconds of one
// run are not independent (a slow second tends to follow a slow second), so
// the test is optimistic: that is why a change must also be at least Noise
// (runs compare) or cross the user's threshold (the CI gate) to count.

// Confidence is the default confidence level of comparisons.
const Confidence = 0.95

// MinSamples is the fewest seconds on each side that a comparison calls
// significant: below it a rank test cannot reach 95 % however the samples
// fall, and a short run is not called better or worse without evidence.
const MinSamples = 5

// minSecond is the shortest interval taken as a sample: a run's trailing
// partial second holds too few operations to stand for a second.
const minSecond = 500 * time.Millisecond

// bootstrapRounds is how many resamples the confidence interval is drawn
// from; the generator is seeded with a constant, so the same samples always
// give the same interval.
const bootstrapRounds = 1000

// Significance is the statistical comparison of a metric's per-second samples of A
// (the base) and B.
type Significance struct {
	NA, NB     int     // seconds in each sample
	MedA, MedB float64 // their medians
	// Rel is MedB/MedA − 1, and Lo..Hi its confidence interval at Conf
	// (percentile bootstrap); NaN without MinSamples on both sides or a
	// zero median of A.
	Rel, Lo, Hi float64
	Conf        float64
	// P is the two-sided p-value of the Mann-Whitney U test (normal
	// approximation with tie and continuity correction); NaN without
	// MinSamples on both sides.
	P float64
}

// Enough tells whether both samples have MinSamples seconds.
func (s Significance) Enough() bool { return s.NA >= MinSamples && s.NB >= MinSamples }

// Significant tells whether the samples differ at the confidence level: the
// rank test rejects "same distribution" and the interval excludes zero.
func (s Significance) Significant() bool {
	return s.Enough() && s.P < 1-s.Conf && !math.IsNaN(s.Rel) && (s.Lo > 0 || s.Hi < 0)
}

// Verdict is Better or Worse for a significant change of at least Noise,
// Same otherwise (also without enough samples).
func (s Significance) Verdict(higherIsBetter bool) Verdict {
	if !s.Significant() || math.Abs(s.Rel) < Noise {
		return Same
	}
	if (s.Rel > 0) == higherIsBetter {
		return Better
	}
	return Worse
}

// Say is the verdict in words for a table: "better", "worse", "no
// significant change", "within ±5%" or why there is no verdict.
// higherIsBetter gives the direction.
func (s Significance) Say(higherIsBetter bool) string {
	switch {
	case s.NA == 0 || s.NB == 0:
		return "no per-second samples"
	case !s.Enough():
		return fmt.Sprintf("too few seconds (%d vs %d, need %d)", s.NA, s.NB, MinSamples)
	case math.IsNaN(s.Rel):
		return "no base value"
	case !s.Significant():
		return "no significant change"
	}
	if v := s.Verdict(higherIsBetter); v != Same {
		return v.String()
	}
	return fmt.Sprintf("within ±%.0f%%", Noise*100)
}

// CompareSamples compares the samples a (base) and b at the confidence
// level conf (Confidence when 0).
func CompareSamples(a, b []float64, conf float64) Significance {
	if conf <= 0 || conf >= 1 {
		conf = Confidence
	}
	s := Significance{NA: len(a), NB: len(b), Conf: conf, Rel: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: math.NaN(),
		MedA: Median(a), MedB: Median(b)}
	if !s.Enough() {
		return s
	}
	s.P = MannWhitney(a, b)
	if s.MedA != 0 {
		s.Rel = s.MedB/s.MedA - 1
		s.Lo, s.Hi = bootstrapRel(a, b, conf)
	}
	return s
}

// MannWhitney is the two-sided p-value of the Mann-Whitney U test of a
// and b (normal approximation, corrected for ties and continuity): the
// chance of ranks as far apart as these if both came from one distribution.
func MannWhitney(a, b []float64) float64 {
	n1, n2 := float64(len(a)), float64(len(b))
	if n1 == 0 || n2 == 0 {
		return math.NaN()
	}
	type obs struct {
		v    float64
		from int
	}
	all := make([]obs, 0, len(a)+len(b))
	for _, v := range a {
		all = append(all, obs{v, 0})
	}
	for _, v := range b {
		all = append(all, obs{v, 1})
	}
	slices.SortFunc(all, func(x, y obs) int { return cmpFloat(x.v, y.v) })
	var rankA, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // the mean of ranks i+1 … j
		for k := i; k < j; k++ {
			if all[k].from == 0 {
				rankA += rank
			}
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	n := n1 + n2
	u := rankA - n1*(n1+1)/2
	mu := n1 * n2 / 2
	sigma := math.Sqrt(n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1))))
	if sigma == 0 {
		return 1 // every value is the same
	}
	z := math.Max(math.Abs(u-mu)-0.5, 0) / sigma
	return math.Erfc(z / math.Sqrt2)
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// bootstrapRel is the percentile bootstrap interval at conf of
// median(b)/median(a) − 1.
func bootstrapRel(a, b []float64, conf float64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(0x5eed, uint64(len(a))<<32|uint64(len(b))))
	sa, sb := slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	ca, cb := make([]int, len(a)), make([]int, len(b))
	rels := make([]float64, 0, bootstrapRounds)
	for range bootstrapRounds {
		ma := resampledMedian(rng, sa, ca)
		mb := resampledMedian(rng, sb, cb)
		if ma != 0 {
			rels = append(rels, mb/ma-1)
		}
	}
	if len(rels) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(rels)
	tail := (1 - conf) / 2
	return quantileSorted(rels, tail), quantileSorted(rels, 1-tail)
}

// resampledMedian is the median of len(sorted) values drawn from sorted
// with replacement, in linear time: because sorted is in order, the k-th
// smallest value drawn is at the k-th smallest index drawn, and indices are
// counted rather than sorted. counts is scratch space of the same length.
func resampledMedian(rng *rand.Rand, sorted []float64, counts []int) float64 {
	n := len(sorted)
	clear(counts)
	for range n {
		counts[rng.IntN(n)]++
	}
	lowK, highK := (n-1)/2, n/2 // the same for an odd count
	low, seen := math.NaN(), 0
	for i, c := range counts {
		seen += c
		if math.IsNaN(low) && seen > lowK {
			low = sorted[i]
		}
		if seen > highK {
			return (low + sorted[i]) / 2
		}
	}
	return low // not reached: the counts add up to n
}

// quantileSorted is the q-quantile of sorted s, linearly interpolated.
func quantileSorted(s []float64, q float64) float64 {
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	f := pos - float64(i)
	return s[i]*(1-f) + s[i+1]*f
}

// Samples are the per-second values of metric m of operation op in the
// measure phases of a run's intervals: successful operations per second,
// errors per second, or the second's response-time figure (µs). Seconds
// shorter than half a second, and for latencies seconds without an
// operation, are left out. P99.9 is not stored per second: it has none.
func Samples(ivs []results.IntervalRow, op string, m Metric) []float64 {
	var out []float64
	for _, iv := range ivs {
		if iv.Phase != measure.PhaseMeasure || iv.Op != op || iv.Length < minSecond {
			continue
		}
		secs := iv.Length.Seconds()
		var v float64
		switch m {
		case Throughput:
			v = float64(iv.Count-iv.Errors) / secs
		case Errors:
			v = float64(iv.Errors) / secs
		default:
			if iv.Count == 0 {
				continue
			}
			switch m {
			case Mean:
				v = iv.MeanUS
			case P50:
				v = float64(iv.P50US)
			case P95:
				v = float64(iv.P95US)
			case P99:
				v = float64(iv.P99US)
			case Max:
				v = float64(iv.MaxUS)
			default:
				return nil
			}
		}
		out = append(out, v)
	}
	return out
}

// FormatCI is the interval as "[-3.1%, +0.4%]", "—" without one.
func (s Significance) FormatCI() string {
	if math.IsNaN(s.Lo) || math.IsNaN(s.Hi) {
		return "—"
	}
	return fmt.Sprintf("[%+.1f%%, %+.1f%%]", s.Lo*100, s.Hi*100)
}

// FormatP is the p-value as "0.031" or "<0.001", "—" without one.
func (s Significance) FormatP() string {
	switch {
	case math.IsNaN(s.P):
		return "—"
	case s.P < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", s.P)
}

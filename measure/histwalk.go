package measure

import (
	"math"
	"math/bits"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The one walk over a histogram's counters that StatsOf takes.
//
// hdrhistogram-go's Mean, Min, Max and ValueAtPercentiles each walk the
// counters with the library's iterator (tens of ns per counter: thousands of
// counters up to a latency of seconds), and its iterator is not exported. So
// the walk is written here, over the counters Export copies, with the
// library's index arithmetic (hdr.go's New, getBucketIndex, valueFromIndex,
// lowestEquivalentValue, highestEquivalentValue, medianEquivalentValue): the
// figures are the library's, to the bit; TestStatsOfEqualsOracle holds them
// to the library's own methods.

// histLayout is how a histogram's counters map to values.
type histLayout struct {
	unitMagnitude   int64
	halfMagnitude   int32 // log2 of the counters per bucket after the first
	subBucketCount  int32
	subBucketMask   int64
	halfBucketCount int32
}

// layoutOf derives the layout as hdr.New does from the same parameters.
func layoutOf(s *hdr.Snapshot) histLayout {
	digits := min(max(s.SignificantFigures, 1), 5)
	countMagnitude := int32(math.Ceil(math.Log2(2 * math.Pow10(int(digits)))))
	half := max(countMagnitude, 1) - 1
	unit := max(int64(math.Floor(math.Log2(float64(max(s.LowestTrackableValue, 1))))), 0)
	count := int32(math.Pow(2, float64(half)+1))
	return histLayout{
		unitMagnitude:   unit,
		halfMagnitude:   half,
		subBucketCount:  count,
		subBucketMask:   int64(count-1) << uint(unit),
		halfBucketCount: count / 2,
	}
}

func (l histLayout) bucketOf(v int64) int32 {
	ceil := int64(64 - bits.LeadingZeros64(uint64(v|l.subBucketMask)))
	return int32(ceil - l.unitMagnitude - int64(l.halfMagnitude+1))
}

// lowest and highest are the equivalent-value bounds of v's counter.
func (l histLayout) lowest(v int64) int64 {
	b := l.bucketOf(v)
	sub := int32(v >> uint(int64(b)+l.unitMagnitude))
	return int64(sub) << uint(int64(b)+l.unitMagnitude)
}

func (l histLayout) highest(v int64) int64 {
	b := l.bucketOf(v)
	sub := int32(v >> uint(int64(b)+l.unitMagnitude))
	if sub >= l.subBucketCount {
		b++
	}
	return l.lowest(v) + int64(1)<<uint(l.unitMagnitude+int64(b)) - 1
}

// histWalk holds what one walk found.
type histWalk struct {
	mean     float64
	min, max int64
}

// walkHist walks h's counters once, as the library's iterator does (in
// counter order, until the counts seen reach the total), and returns the
// mean, min and max; at[i] gets the value at which the counts seen first
// reach counts[i] (ascending), as ValueAtPercentiles assigns them. h must
// not be empty.
func walkHist(h *hdr.Histogram, counts, at []int64) histWalk {
	snap := h.Export()
	l := layoutOf(snap)
	total := h.TotalCount()
	var seen, sum, first, last int64
	found := false
	next := 0
	for idx, c := range snap.Counts {
		if seen >= total {
			break
		}
		if c == 0 {
			continue
		}
		seen += c
		// The counter's bucket and the first value it counts: the first
		// 2·half counters are bucket 0, then half per bucket.
		bucket, sub := int32(0), int32(idx)
		if sub >= l.subBucketCount {
			bucket = int32(idx>>uint(l.halfMagnitude)) - 1
			sub = int32(idx)&(l.halfBucketCount-1) + l.halfBucketCount
		}
		shift := uint(int64(bucket) + l.unitMagnitude)
		from := int64(sub) << shift
		sum += c * (from + (int64(1)<<shift)>>1) // medianEquivalentValue
		if !found {
			first, found = from, true
		}
		last = from
		for next < len(counts) && seen >= counts[next] {
			at[next] = l.highest(from)
			next++
		}
	}
	return histWalk{
		mean: float64(sum) / float64(total),
		min:  l.lowest(l.highest(first)),
		max:  l.highest(l.highest(last)),
	}
}

package livemetrics

import (
	"math"
	"slices"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// NativeSchema is the native histograms' resolution: bucket boundaries grow
// by 2^(2^-3) ≈ 1.09, so a percentile read from them is within 9 % of
// dbrig's own (HdrHistogram at 3 significant digits).
const NativeSchema = 3

// ClassicBuckets are the classic buckets' upper bounds, in seconds: 1-2.5-5
// steps from 10 µs to 10 s, for scrapers and dashboards without native
// histograms.
var ClassicBuckets = []float64{
	0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005,
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

// hist is a cumulative histogram in seconds kept as both classic bucket
// counts and native (sparse, exponential) buckets, fed once a second from
// an interval's HdrHistogram.
type hist struct {
	count   uint64
	sum     float64
	classic []uint64 // per bound of ClassicBuckets, not cumulative
	native  map[int]int64
	zero    uint64 // observations of 0 (under HdrHistogram's 1 µs), the native zero bucket
}

func newHist() *hist {
	return &hist{classic: make([]uint64, len(ClassicBuckets)), native: map[int]int64{}}
}

// addHDR adds h's counts (microseconds). Each HdrHistogram bucket counts
// as its highest equivalent value, as dbrig's own percentiles do. The
// buckets' places among the classic and native ones come from ls, worked
// out once per histogram layout: a second's histogram costs one pass over
// its counts.
func (x *hist) addHDR(h *hdr.Histogram, ls layouts) {
	if h == nil || h.TotalCount() == 0 {
		return
	}
	s := h.Export()
	l := ls.of(s)
	for i, n := range s.Counts {
		if n == 0 {
			continue
		}
		x.count += uint64(n)
		x.sum += l.secs[i] * float64(n)
		if c := l.classic[i]; int(c) < len(x.classic) {
			x.classic[c] += uint64(n)
		}
		if ni := l.native[i]; ni < 0 {
			x.zero += uint64(n)
		} else {
			l.scratch[ni] += n
		}
	}
	for j, n := range l.scratch {
		if n != 0 {
			x.native[j+l.base] += n
			l.scratch[j] = 0
		}
	}
}

// layout is where each bucket of one HdrHistogram layout goes.
type layout struct {
	secs    []float64 // highest equivalent value, in seconds
	classic []uint8   // index in ClassicBuckets; len(ClassicBuckets): only +Inf
	native  []int32   // native bucket − base; −1: the zero bucket
	base    int
	scratch []int64 // per native bucket − base, zero between calls
}

type layoutKey struct{ lowest, highest, figures int64 }

// layouts caches the layouts seen (dbrig uses one).
type layouts map[layoutKey]*layout

func (ls layouts) of(s *hdr.Snapshot) *layout {
	k := layoutKey{s.LowestTrackableValue, s.HighestTrackableValue, s.SignificantFigures}
	if l := ls[k]; l != nil && len(l.secs) == len(s.Counts) {
		return l
	}
	n := len(s.Counts)
	l := &layout{secs: make([]float64, n), classic: make([]uint8, n), native: make([]int32, n)}
	lo, hi := math.MaxInt, math.MinInt
	idx := make([]int, n)
	bucketValues(s, func(i int, v int64) {
		sec := float64(v) / 1e6
		l.secs[i] = sec
		c, _ := slices.BinarySearch(ClassicBuckets, sec)
		l.classic[i] = uint8(c)
		if sec <= 0 {
			idx[i] = math.MinInt
			return
		}
		idx[i] = nativeIndex(sec)
		lo, hi = min(lo, idx[i]), max(hi, idx[i])
	})
	l.base = lo
	for i, ni := range idx {
		l.native[i] = -1
		if ni != math.MinInt {
			l.native[i] = int32(ni - lo)
		}
	}
	l.scratch = make([]int64, max(hi-lo+1, 0))
	ls[k] = l
	return l
}

// bucketValues calls fn with each counts index of a snapshot and the
// highest value equivalent to it, as h.Distribution's bars give them. The
// arithmetic is HdrHistogram's layout (its countsIndex, inverted); a test
// holds it to Distribution.
func bucketValues(s *hdr.Snapshot, fn func(i int, v int64)) {
	subCountMag := int(math.Ceil(math.Log2(2 * math.Pow10(int(s.SignificantFigures)))))
	halfMag := max(subCountMag, 1) - 1
	unitMag := max(int(math.Floor(math.Log2(float64(s.LowestTrackableValue)))), 0)
	half := 1 << halfMag
	for i := range s.Counts {
		bucket, sub := 0, i
		if i >= 2*half {
			bucket, sub = i>>halfMag-1, i&(half-1)+half
		}
		shift := bucket + unitMag
		fn(i, int64(sub)<<shift+(int64(1)<<shift)-1)
	}
}

// add counts n observations of v seconds.
func (x *hist) add(v float64, n uint64) {
	x.count += n
	x.sum += v * float64(n)
	if i, ok := slices.BinarySearch(ClassicBuckets, v); ok || i < len(ClassicBuckets) {
		x.classic[i] += n
	}
	if v <= 0 {
		x.zero += n
		return
	}
	x.native[nativeIndex(v)] += int64(n)
}

// nativeBounds are the bucket bounds within one power of two, as
// fractions of math.Frexp: 2^(i/8 − 1) for i in 0..7.
var nativeBounds = func() []float64 {
	b := make([]float64, 1<<NativeSchema)
	for i := range b {
		b[i] = math.Exp2(float64(i)/(1<<NativeSchema) - 1)
	}
	return b
}()

// nativeIndex is the native bucket of v > 0 at NativeSchema: bucket i holds
// (2^((i-1)/8), 2^(i/8)]. It searches a table of fractions, as client_golang
// does, so that a bound itself falls in the bucket it closes.
func nativeIndex(v float64) int {
	frac, exp := math.Frexp(v) // v = frac·2^exp, frac in [0.5, 1)
	return sort.SearchFloat64s(nativeBounds, frac) + (exp-1)*len(nativeBounds)
}

// metric is the histogram as one client_golang metric: classic buckets and
// native ones in the same dto.Histogram, as a client_golang Histogram with
// both configured writes it (the scraper takes what it asks for).
func (x *hist) metric(desc *prometheus.Desc, labels ...string) prometheus.Metric {
	h := &dto.Histogram{
		SampleCount:   proto.Uint64(x.count),
		SampleSum:     proto.Float64(x.sum),
		Schema:        proto.Int32(NativeSchema),
		ZeroThreshold: proto.Float64(0),
		ZeroCount:     proto.Uint64(x.zero),
	}
	var cum uint64
	for i, ub := range ClassicBuckets {
		cum += x.classic[i]
		h.Bucket = append(h.Bucket, &dto.Bucket{CumulativeCount: proto.Uint64(cum), UpperBound: proto.Float64(ub)})
	}
	h.PositiveSpan, h.PositiveDelta = spans(x.native)
	if len(h.PositiveSpan) == 0 {
		// No buckets yet: an empty span still marks the histogram native.
		h.PositiveSpan = []*dto.BucketSpan{{Offset: proto.Int32(0), Length: proto.Uint32(0)}}
	}
	return &histMetric{desc: desc, labels: prometheus.MakeLabelPairs(desc, labels), h: h}
}

// spans encodes sparse buckets as native histograms carry them: runs of
// consecutive indexes, each count as the delta from the one before.
func spans(buckets map[int]int64) ([]*dto.BucketSpan, []int64) {
	if len(buckets) == 0 {
		return nil, nil
	}
	idx := make([]int, 0, len(buckets))
	for i := range buckets {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var ss []*dto.BucketSpan
	deltas := make([]int64, 0, len(idx))
	var prevCount int64
	prevIdx := 0
	for n, i := range idx {
		if n == 0 || i != prevIdx+1 {
			off := int32(i)
			if n > 0 {
				off = int32(i - prevIdx - 1)
			}
			ss = append(ss, &dto.BucketSpan{Offset: proto.Int32(off), Length: proto.Uint32(0)})
		}
		*ss[len(ss)-1].Length++
		deltas = append(deltas, buckets[i]-prevCount)
		prevCount, prevIdx = buckets[i], i
	}
	return ss, deltas
}

// histMetric is a histogram snapshot taken under the collector's lock.
type histMetric struct {
	desc   *prometheus.Desc
	labels []*dto.LabelPair
	h      *dto.Histogram
}

func (m *histMetric) Desc() *prometheus.Desc { return m.desc }

func (m *histMetric) Write(out *dto.Metric) error {
	out.Label = m.labels
	out.Histogram = m.h
	return nil
}

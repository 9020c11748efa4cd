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

// addHDR adds h's counts (microseconds). Each HdrHistogram bar counts as
// its highest equivalent value, as dbrig's own percentiles do.
func (x *hist) addHDR(h *hdr.Histogram) {
	if h == nil || h.TotalCount() == 0 {
		return
	}
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		x.add(float64(b.To)/1e6, uint64(b.Count))
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

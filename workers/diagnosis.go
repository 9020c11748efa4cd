package workers

import (
	"strconv"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workers/wire"
)

// diagnosis keeps what the exact merge cannot give back about each worker:
// its own response-time and dispatch-lag percentiles (they do not add), per
// second and over its measure phase. The histograms are the worker's
// encoded ones, decoded again into these (the merge decodes them straight
// into the merged interval).
type diagnosis struct {
	second  *hdr.Histogram   // scratch: one worker's second, all operations
	resp    []*hdr.Histogram // per worker: measure phase response time, all operations
	lag     []*hdr.Histogram // per worker: measure phase dispatch lag
	clients []int
}

func newDiagnosis(shares []experiment.Share) *diagnosis {
	d := &diagnosis{second: measure.NewHistogram(), resp: make([]*hdr.Histogram, len(shares)),
		lag: make([]*hdr.Histogram, len(shares)), clients: make([]int, len(shares))}
	for i, sh := range shares {
		d.clients[i], _ = strconv.Atoi(sh.Props["threadcount"])
	}
	return d
}

// add takes worker w's interval and returns the response-time p99 of its
// second (µs, all operations; 0 without operations).
func (d *diagnosis) add(w int, wi *wire.Interval) (int64, error) {
	d.second.Reset()
	for _, o := range wi.Ops {
		if err := measure.AddEncodedHistogram(d.second, o.Response); err != nil {
			return 0, err
		}
	}
	p99 := measure.Percentile(d.second, 99)
	if wi.Phase != measure.PhaseMeasure {
		return p99, nil
	}
	if d.resp[w] == nil {
		d.resp[w], d.lag[w] = measure.NewHistogram(), measure.NewHistogram()
	}
	d.resp[w].Merge(d.second)
	if len(wi.Lag) > 0 {
		if err := measure.AddEncodedHistogram(d.lag[w], wi.Lag); err != nil {
			return p99, err
		}
	}
	return p99, nil
}

// figures returns worker w's measure-phase percentiles (µs; 0 without a
// measure phase).
func (d *diagnosis) figures(w int) (p50, p99, lagP99 int64) {
	if d.resp[w] == nil {
		return 0, 0, 0
	}
	return measure.Percentile(d.resp[w], 50), measure.Percentile(d.resp[w], 99), measure.Percentile(d.lag[w], 99)
}

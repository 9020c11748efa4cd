package analysis

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/measure"
)

// DistGrid is the x of percentile plots, 1/(1−p): 40 points per decade from
// p=0 up to the highest percentile the sample supports (p = 1 − 1/count).
func DistGrid(maxCount int64) []Num {
	limit := math.Min(float64(max(maxCount, 2)), 1e7)
	const perDecade = 40
	var out []Num
	for i := 0; ; i++ {
		v := math.Pow(10, float64(i)/perDecade)
		if v > limit {
			break
		}
		out = append(out, Num(v))
	}
	return out
}

// Percentiles is the curve of a histogram over a DistGrid, in milliseconds:
// the value at p = 1 − 1/x, a gap beyond what the sample supports.
func Percentiles(h *hdr.Histogram, grid []Num) []Num {
	y := make([]Num, len(grid))
	for i, x := range grid {
		if h == nil || h.TotalCount() == 0 || float64(x) > float64(max(h.TotalCount(), 2)) {
			y[i] = Gap()
			continue
		}
		y[i] = Num(float64(measure.Percentile(h, 100*(1-1/float64(x)))) / 1000)
	}
	return y
}

// distribution plots response and service time against percentile from the
// summary histograms, HdrHistogram style, so that the gap between them —
// coordinated omission avoided — is visible at the tail.
func distribution(runs []Run, op string, multi bool) Chart {
	c := Chart{ID: ChartID(KindDistribution, op), Kind: KindDistribution, Title: op + " latency by percentile",
		XLabel: "percentile", YLabel: "latency (ms)"}
	var maxCount int64
	type pair struct{ resp, svc *hdr.Histogram }
	hists := make([]pair, len(runs))
	for i, r := range runs {
		if r.Summary == nil {
			continue
		}
		o, ok := OpOf(*r.Summary, op)
		if !ok {
			continue
		}
		hists[i] = pair{o.ResponseHist, o.ServiceHist}
		if o.ResponseHist != nil {
			maxCount = max(maxCount, o.ResponseHist.TotalCount())
		}
	}
	if maxCount == 0 {
		c.Note = "no latency histogram was stored for " + op
		return c
	}
	c.X = DistGrid(maxCount)
	for i, r := range runs {
		name := runLabel(r, multi)
		respColor, svcColor := lineColor(1), lineColor(0)
		if multi {
			respColor, svcColor = lineColor(i), lineColor(i)
		}
		c.Lines = append(c.Lines,
			Line{Label: name + "response time", Color: respColor, Y: Percentiles(hists[i].resp, c.X)},
			Line{Label: name + "service time", Color: svcColor, Dash: true, Y: Percentiles(hists[i].svc, c.X)})
	}
	return c
}

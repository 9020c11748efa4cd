package ycsb

import (
	"sort"

	"github.com/dbrig/dbrig/spec"
)

// unimplemented are properties YCSB's client and its documentation define
// that dbrig accepts but does not act on: its own outputs replace them
// (--hdrlog, --json, the results store, per-second intervals). YCSB's
// template files set some of them, and must run unchanged.
var unimplemented = []string{
	"exportfile", "exporter", "measurementtype", "measurement.histogram.verbose", "measurement.trackjvm",
	"measurement.raw.output_file", "measurement.raw.separate_summary", "histogram.buckets",
	"timeseries.granularity", "reportlatencyforeacherror", "latencytrackederrors",
	"hdrhistogram.percentiles", "hdrhistogram.fileoutput", "hdrhistogram.output.path", "dotransactions",
}

// Unimplemented declares YCSB's properties that dbrig ignores as known and
// returns those that were set, sorted, for one warning line.
func Unimplemented(p *spec.Props) []string {
	var set []string
	for _, k := range unimplemented {
		if p.Has(k) {
			set = append(set, k)
		}
		p.Known(k)
	}
	sort.Strings(set)
	return set
}

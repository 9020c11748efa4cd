package analysis

import (
	"sort"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// errorChart shows errors per second by class (one run) or in total per run
// (several), from the OVERALL rows, and dropped operations when there were any.
func errorChart(runs []Run, x []Num, bands []Band, marks []Mark, xmax float64, multi bool) Chart {
	c := Chart{ID: ErrorsChartID, Kind: KindErrors, Title: "errors over time", XLabel: "time since start (s)",
		YLabel: "per second", X: x, Bands: bands, Marks: marks, XMax: xmax, SpanGaps: multi}
	if len(x) == 0 {
		c.Note = noIntervals
		return c
	}
	errs := func(iv results.IntervalRow) Num { return perSecond(iv.Errors, iv) }
	for i, r := range runs {
		rows := opRows(r.Intervals, measure.OverallOp)
		xs := xsOf(r.Intervals)
		name := runLabel(r, multi)
		if multi {
			c.Lines = append(c.Lines, Line{Label: name + "errors/s", Color: lineColor(i), Y: Align(x, rows, errs, xs)})
		} else {
			names := errorClasses(rows)
			for j, k := range names {
				c.Lines = append(c.Lines, Line{Label: k, Color: lineColor(j + 1),
					Y: Align(x, rows, func(iv results.IntervalRow) Num { return perSecond(iv.Classes[k], iv) }, xs)})
			}
			if len(names) == 0 {
				c.Lines = append(c.Lines, Line{Label: "errors", Color: lineColor(1), Y: Align(x, rows, errs, xs)})
			}
		}
		var dropped int64
		for _, iv := range rows {
			dropped += iv.Dropped
		}
		if dropped > 0 {
			c.Lines = append(c.Lines, Line{Label: name + "dropped/s", Color: lineColor(i + 4), Dash: true,
				Y: Align(x, rows, func(iv results.IntervalRow) Num { return perSecond(iv.Dropped, iv) }, xs)})
		}
	}
	return c
}

// errorClasses are the classes with errors in any of the rows, sorted.
func errorClasses(rows map[float64]results.IntervalRow) []string {
	classes := map[string]bool{}
	for _, iv := range rows {
		for k, v := range iv.Classes {
			if v > 0 {
				classes[k] = true
			}
		}
	}
	names := make([]string, 0, len(classes))
	for k := range classes {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

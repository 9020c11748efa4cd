package report

import (
	"strings"
	"time"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/measure"
)

// Progress formats one live progress line from the last interval:
//
//	elapsed 12s | 9,996 ops/s | p99 1.20ms | lag p99 12µs | errors 2 (0.0%) | dropped 0 | ETA 48s
//
// ops/s counts the successful operations only; errors are counted apart,
// with their share of the interval's operations. The p99 is the response
// time of all operations of the interval; lag p99
// is how late dbrig itself started them (its part of that p99). eta < 0
// means unknown and is left out.
func Progress(iv measure.Interval, elapsed, eta time.Duration) string {
	all := measure.NewHistogram()
	var count, errs int64
	for _, o := range iv.Ops {
		count += o.Count
		errs += o.Errors
		if o.Response != nil {
			all.Merge(o.Response)
		}
	}
	rate := measure.Rate(count, errs, iv.End.Sub(iv.Start).Seconds())
	errText := "errors " + format.Int(errs)
	if errs > 0 {
		errText += " (" + measure.SharePct(errs, count) + ")"
	}
	unit := " ops/s"
	if iv.Phase == measure.PhaseLoad {
		unit = " batches/s" // the load phase records one operation per insert batch
	}
	parts := []string{
		"elapsed " + format.Elapsed(elapsed),
		format.Rate(rate) + unit,
		"p99 " + format.MicrosInt(measure.Percentile(all, 99)),
		errText,
		"dropped " + format.Int(iv.Dropped),
	}
	if iv.Lag != nil && iv.Phase != measure.PhaseLoad { // a load batch has no schedule to lag behind
		parts = append(parts[:3], append([]string{"lag p99 " + format.MicrosInt(lagP99(iv))}, parts[3:]...)...)
	}
	if iv.Phase != "" && iv.Phase != measure.PhaseMeasure {
		parts = append([]string{iv.Phase}, parts...)
	}
	if eta >= 0 {
		parts = append(parts, "ETA "+format.Elapsed(eta))
	}
	return strings.Join(parts, " | ")
}

// lagP99 is the interval's dispatch lag p99 (0 without operations), by
// nearest rank as every dbrig percentile.
func lagP99(iv measure.Interval) int64 {
	return measure.Percentile(iv.Lag, 99)
}

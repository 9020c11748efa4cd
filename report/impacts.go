package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
)

// Impacts prints what each fault cost: response-time p50, p95 and p99 and
// throughput before, during and after it, the time without a successful
// operation, and the time to recover (or why it could not be measured).
func Impacts(w io.Writer, ims []analysis.Impact) error {
	if len(ims) == 0 {
		return nil
	}
	ew := &errWriter{w: w}
	t := &table{}
	t.add("fault", "at", "p50/p95/p99 before", "during", "after", "ops/s before", "during", "change", "unavailable", "recovery")
	for _, im := range ims {
		if im.NotFired {
			t.add(im.Fault, format.Elapsed(im.Start), "–", "–", "–", "–", "–", "–", "–", "did not fire")
			continue
		}
		t.add(im.Fault, format.Elapsed(im.Start), Percentiles(im.Baseline), Percentiles(im.During), Percentiles(im.After),
			format.Rate(im.Baseline.Throughput), format.Rate(im.During.Throughput), fmt.Sprintf("%+.0f%%", im.ThroughputChangePct),
			unavailable(im), RecoveryText(im))
	}
	if len(ims) > 0 && ims[0].Precise {
		ew.printf("\nfaults and what they cost (per operation: unavailable is the longest stretch without a successful operation;\n"+
			"recovery runs from the first %d bad operations in a row (failed, or slower than the baseline's mean + %.0fσ)\n"+
			"until %d s in a row without failures and with no more slow operations than the baseline had):\n",
			analysis.RecoveryRun, analysis.RecoverySigmas, analysis.RecoveryHold)
	} else {
		ew.printf("\nfaults and what they cost (per-second resolution; recovery: until %d s in a row without failed operations\n"+
			"and with no more operations slower than the baseline's mean + %.0fσ than the baseline had):\n", analysis.RecoveryHold, analysis.RecoverySigmas)
	}
	ew.table(t, "  ")
	if cuts := cutNotes(ims); cuts != "" {
		ew.printf("  %s\n", cuts)
	}
	for _, im := range ims {
		ew.printf("  %s: %s (%s)\n", im.Fault, im.Detail, im.Outcome)
		if sh := ShareLine(im); sh != "" {
			ew.printf("    client traffic by node, before → during → after: %s\n", sh)
		}
		if l := LagLine(im); l != "" {
			ew.printf("    replication lag: %s\n", l)
		}
	}
	return ew.err
}

// cutNotes explains the reasons the table gives for a recovery it could
// not measure; "" when every fault recovered.
func cutNotes(ims []analysis.Impact) string {
	seen := map[string]bool{}
	var notes []string
	for _, im := range ims {
		if im.RecoveryCut == "" || seen[im.RecoveryCut] {
			continue
		}
		seen[im.RecoveryCut] = true
		switch im.RecoveryCut {
		case analysis.RecoveryCutNeverCalm:
			notes = append(notes, "never calm: the baseline had no calm second to recover to")
		default:
			notes = append(notes, fmt.Sprintf("%s: the window ended before %d s of calm could follow", im.RecoveryCut, analysis.RecoveryHold))
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return "not recovered (" + strings.Join(notes, "; ") + ")"
}

// ShareLine is each node's share of the client traffic before → during →
// after the fault ("etcd1 33% → 50% → 50%, …"); "" without shares.
func ShareLine(im analysis.Impact) string {
	pct := func(v float64) string {
		if v < 0 {
			return "–"
		}
		return fmt.Sprintf("%.0f%%", v)
	}
	var parts []string
	for _, s := range im.Shares {
		parts = append(parts, fmt.Sprintf("%s %s → %s → %s", s.Node, pct(s.Baseline), pct(s.During), pct(s.After)))
	}
	return strings.Join(parts, ", ")
}

// unavailable is the time without a successful operation: to the ms from
// the per-operation timeline (as verdicts print it), else in whole seconds.
func unavailable(im analysis.Impact) string {
	if im.Precise {
		return format.Millis(im.UnavailableMS)
	}
	return format.Int(int64(im.UnavailableS)) + " s"
}

// RecoveryText is a fault's recovery time to the ms (as verdicts print
// it), or why there is none ("not recovered within 7.0s (end of run)").
func RecoveryText(im analysis.Impact) string {
	if im.Recovery == nil {
		return im.NotRecovered()
	}
	return format.Millis(im.Recovery.Milliseconds())
}

// Percentiles is a window's response-time p50 / p95 / p99; "–" when no
// operation completed in it.
func Percentiles(w analysis.Window) string {
	if w.Ops == 0 {
		return "–"
	}
	return format.MicrosInt(w.P50) + " / " + format.MicrosInt(w.P95) + " / " + format.MicrosInt(w.P99)
}

// LagLine is each replica's replication lag around the fault ("pg-replica1
// at most 448 KiB (normal 12 KiB), back within normal 92 ms after the
// heal"); "" without samples.
func LagLine(im analysis.Impact) string {
	kib := func(b float64) string { return format.Int(int64(b+512)/1024) + " KiB" }
	var parts []string
	for _, l := range im.Lags {
		back := "not back within normal before the window ended"
		if l.CaughtUp != nil {
			back = "back within normal " + format.MicrosInt(l.CaughtUp.Microseconds()) + " after the fault ended"
		}
		parts = append(parts, fmt.Sprintf("%s at most %s (normal %s), %s", l.Node, kib(l.Max), kib(l.Normal), back))
	}
	return strings.Join(parts, "; ")
}

package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/gate"
)

// CheckTable writes dbrig check's outcome: per configuration the runs
// checked and their baseline, then per rule both sides' figures, the change
// of the per-second medians with its confidence interval, the p-value, the
// z-score over a history, and the verdict; last, whether the gate passed.
func CheckTable(w io.Writer, rep gate.Report) error {
	ew := &errWriter{w: w}
	for _, n := range rep.Notes {
		ew.printf("note: %s\n", n)
	}
	conf := fmt.Sprintf("%g%% CI", math.Round(rep.Confidence*1000)/10)
	group := ""
	var t *table
	flush := func() {
		if t != nil {
			ew.table(t, "  ")
		}
	}
	for _, r := range rep.Results {
		if r.Group != group {
			flush()
			group = r.Group
			ew.printf("\n%s: %s against %s\n", r.Group, checkRuns(r.NewRuns), checkBase(r.BaseRuns))
			t = &table{left: map[int]bool{8: true}}
			t.add("rule", "op", "baseline", "new", "change", conf, "p", "z", "verdict")
		}
		verdict := string(r.Status)
		if r.Status.Fails() {
			verdict = strings.ToUpper(verdict) + ": " + r.Reason
		}
		t.add(r.Rule.Text, r.Op, checkValue(r.Metric, r.Base), checkValue(r.Metric, r.New), change(r.Stat),
			r.Stat.FormatCI(), r.Stat.FormatP(), zText(r.Z), verdict)
	}
	flush()
	if n := rep.Failed(); n > 0 {
		ew.printf("\ncheck failed: %d of %d rules regressed\n", n, len(rep.Results))
	} else {
		ew.printf("\ncheck passed: no significant regression beyond a threshold (%d rules)\n", len(rep.Results))
	}
	return ew.err
}

func checkRuns(ids []int64) string {
	if len(ids) == 1 {
		return fmt.Sprintf("run %d", ids[0])
	}
	return "runs " + joinIDs(ids)
}

func checkBase(ids []int64) string {
	if len(ids) == 0 {
		return "no baseline"
	}
	return checkRuns(ids)
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// checkValue formats a rule's figure in its unit; "—" without one.
func checkValue(m analysis.Metric, v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case m == analysis.Errors:
		return format.Int(int64(math.Round(v)))
	}
	return fmtMetric(m, v)
}

func change(s analysis.Significance) string {
	if math.IsNaN(s.Rel) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", s.Rel*100)
}

func zText(z float64) string {
	if math.IsNaN(z) {
		return "—"
	}
	return fmt.Sprintf("%+.1f", z)
}

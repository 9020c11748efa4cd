package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbrig/dbrig/sla"
)

// SLAVerdict prints a run's verdict on its SLA: met or MISSED, and each
// term's measured value.
func SLAVerdict(w io.Writer, s sla.SLA, res sla.Result) {
	var terms []string
	for _, t := range res.Terms {
		terms = append(terms, t.String())
	}
	verdict := "met"
	if !res.Pass {
		verdict = "MISSED"
	}
	fmt.Fprintf(w, "  SLA %s: %s — %s\n", s, verdict, strings.Join(terms, ", "))
}

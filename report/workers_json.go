package report

import (
	"io"

	"github.com/dbrig/dbrig/analysis"
)

// RunJSON writes a stored run as --json does (JSONResult of its shown
// phase) and, for a distributed run, "workers": each worker's figures and
// the sentences that flag the ones that fell behind (analysis.Workers).
func RunJSON(w io.Writer, rd analysis.Run) error {
	return WriteResultJSON(w, analysis.ResultOf(rd))
}

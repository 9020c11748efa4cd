package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/dbrig/dbrig/analysis"
)

// RunJSON writes a stored run as --json does (JSONResult of its shown
// phase) and, for a distributed run, "workers": each worker's figures and
// the sentences that flag the ones that fell behind (analysis.Workers).
func RunJSON(w io.Writer, rd analysis.Run) error {
	d := rd.Detail
	b, err := json.Marshal(Result(d.ID, d.DisplayStatus(), d.Phases))
	if err != nil {
		return fmt.Errorf("json: %w", err)
	}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("json: %w", err)
	}
	if ws := analysis.WorkersOf(rd); ws != nil {
		if obj["workers"], err = json.Marshal(ws); err != nil {
			return fmt.Errorf("json: workers: %w", err)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(obj)
}

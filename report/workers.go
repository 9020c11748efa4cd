package report

import (
	"strconv"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
)

// workersView is a distributed run's workers section: which worker fell
// behind, each worker's figures and its seconds beside the merged ones.
type workersView struct {
	ID     int64
	Label  string
	Phase  string
	Flags  []string
	Rows   []workerRow
	Charts []chartRef
}

type workerRow struct {
	Index, Status, Host                    string
	Ops, OpsPerSec, Expected               string
	P50, P99, LagP99, Errors, Dropped, Clk string
	Behind                                 bool
}

// workersViews lays out the workers of every distributed run of the set.
func workersViews(rep *analysis.Set, labels []string) []workersView {
	index := map[string]int{}
	for i, c := range rep.Charts {
		index[c.ID] = i
	}
	var out []workersView
	for i, w := range rep.Workers {
		if w == nil {
			continue
		}
		wv := workersView{ID: w.RunID, Label: labels[i], Phase: w.Phase, Flags: w.Flags}
		for _, f := range w.Workers {
			status := f.Status
			if f.LostAfter != nil {
				status += " at +" + format.Elapsed(*f.LostAfter)
			}
			us := func(v int64) string {
				if v == 0 {
					return "—"
				}
				return format.MicrosInt(v)
			}
			exp := "—"
			if f.Expected > 0 {
				exp = format.Rate(f.Expected)
			}
			wv.Rows = append(wv.Rows, workerRow{Index: strconv.Itoa(f.Index), Status: status, Host: f.Host + " pid " + strconv.Itoa(f.PID),
				Ops: format.Int(f.Ops), OpsPerSec: format.Rate(f.OpsPerSec), Expected: exp,
				P50: us(f.RespP50US), P99: us(f.RespP99US), LagP99: us(f.LagP99US), Errors: format.Int(f.Errors), Dropped: format.Int(f.Dropped),
				Clk: format.Duration(f.ClockOffset) + " ± " + format.Duration(timeUS(f.RTTUS)/2), Behind: f.Behind})
		}
		for _, c := range w.Charts {
			if j, ok := index[c.ID]; ok {
				wv.Charts = append(wv.Charts, chartRef{j, rep.Charts[j]})
			}
		}
		out = append(out, wv)
	}
	return out
}

func timeUS(us int64) time.Duration { return time.Duration(us) * time.Microsecond }

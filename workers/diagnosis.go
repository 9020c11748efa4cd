package workers

import (
	"strconv"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workers/wire"
)

// diagnosis keeps what the exact merge cannot give back about each worker:
// its own response-time and dispatch-lag percentiles (they do not add).
// The workers compute them (wire.Interval.RespP99 per second,
// wire.PhaseDone's for the measure phase), so the coordinator decodes no
// histogram twice.
type diagnosis struct {
	clients               []int
	respP50, respP99, lag []int64 // per worker: its measure phase (µs)
}

func newDiagnosis(shares []experiment.Share) *diagnosis {
	n := len(shares)
	d := &diagnosis{clients: make([]int, n), respP50: make([]int64, n), respP99: make([]int64, n), lag: make([]int64, n)}
	for i, sh := range shares {
		d.clients[i], _ = strconv.Atoi(sh.Props["threadcount"])
	}
	return d
}

// phaseDone takes worker w's measure-phase percentiles.
func (d *diagnosis) phaseDone(w int, p *wire.PhaseDone) {
	if p.Phase == measure.PhaseMeasure {
		d.respP50[w], d.respP99[w], d.lag[w] = p.RespP50, p.RespP99, p.LagP99
	}
}

// figures returns worker w's measure-phase percentiles (µs; 0 without a
// measure phase that ended).
func (d *diagnosis) figures(w int) (p50, p99, lagP99 int64) {
	return d.respP50[w], d.respP99[w], d.lag[w]
}

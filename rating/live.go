package rating

import (
	"fmt"
	"strconv"

	"github.com/dbrig/dbrig/livemetrics"
)

// Live labels a rating's experiments in live's metrics: run_id
// ratingID-N (the runs are stored only when each ends), its kind and
// target as matrix values; h's own hooks still run.
func (h *Hooks) Live(live *livemetrics.Live, opts Options) {
	var id int64
	n := 0
	started := h.Started
	h.Started = func(rid int64, store string) {
		id = rid
		if started != nil {
			started(rid, store)
		}
	}
	h.Observer = live.Observer(h.Observer)
	h.Experiment = func(kind string, target float64) {
		n++
		live.Begin(livemetrics.Run{RunID: fmt.Sprintf("rating%d-%d", id, n), Experiment: "rate", System: opts.Base.Driver,
			Matrix: map[string]string{"kind": kind, opts.By: strconv.FormatFloat(target, 'g', -1, 64)}})
	}
}

package livemetrics

import (
	"strconv"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/experiment"
)

// PlanRun describes a run of plan p for dbrig_run_info; experiment is the
// bench's name, the run's --name or the command.
func PlanRun(p *experiment.Plan, exp string, matrix map[string]string) Run {
	if p.Name != "" && exp == "" {
		exp = p.Name
	}
	return Run{Experiment: exp, Workload: p.WorkloadName(), System: p.Driver, Matrix: matrix}
}

// BenchRun describes run r of bench b.
func BenchRun(b *experiment.Bench, r experiment.BenchRun) Run {
	m := map[string]string{}
	for _, mp := range r.Exp.Matrix {
		m[mp.Key] = mp.Value
	}
	if r.Exp.Repeat > 1 {
		m["repeat"] = strconv.Itoa(r.Repeat)
	}
	return PlanRun(r.Plan, b.Name, m)
}

// Hooks returns h with the live metrics fed too: every interval and event,
// the stored run's id, and the nodes of a local cluster (nil-safe: with l
// nil, h as it is).
func (l *Live) Hooks(h experiment.Hooks) experiment.Hooks {
	if l == nil {
		return h
	}
	h.Observer = l.Observer(h.Observer)
	started := h.Started
	h.Started = func(s experiment.Started) {
		l.Stored(s.RunID)
		if started != nil {
			started(s)
		}
	}
	up := h.ClusterUp
	h.ClusterUp = func(nodes []cluster.Node) {
		l.ClusterUp(nodes)
		if up != nil {
			up(nodes)
		}
	}
	return h
}

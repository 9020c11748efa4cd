package workers

import (
	"sort"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workers/wire"
)

// merger merges the workers' intervals exactly: interval k of a phase of
// every worker goes into merged interval k of that phase (the workers
// started the phase together, so their k-th seconds are the same second).
// Histograms add bucket by bucket; counts, errors by class, dropped, late,
// backlog and target rates add; the merged interval spans the earliest
// start to the latest end. A merged interval is emitted, in order, once
// every worker still in the run has sent it or is past it (a later
// interval, the phase's end, or the worker is gone), so a lost worker
// never holds the run up and no operation lands in two merged intervals.
type merger struct {
	n       int
	pending map[slotKey]*slot
	pos     []slotKey // per worker: the last interval it sent (phase -1: none)
	ended   []map[string]bool
	gone    []bool
	emit    func(measure.Interval)
}

type slotKey struct {
	phase int // phaseIndex
	seq   int
}

func (k slotKey) less(o slotKey) bool {
	if k.phase != o.phase {
		return k.phase < o.phase
	}
	return k.seq < o.seq
}

type slot struct {
	iv   measure.Interval
	from []bool
}

func newMerger(n int, emit func(measure.Interval)) *merger {
	m := &merger{n: n, pending: map[slotKey]*slot{}, pos: make([]slotKey, n), ended: make([]map[string]bool, n),
		gone: make([]bool, n), emit: emit}
	for i := range m.pos {
		m.pos[i] = slotKey{phase: -1}
		m.ended[i] = map[string]bool{}
	}
	return m
}

// phaseIndex orders phases as a run performs them (measure.Phases), a name
// that is no phase after them all.
func phaseIndex(p string) int {
	if i := measure.PhaseRank(p); i >= 0 {
		return i
	}
	return len(measure.Phases())
}

// addWire merges worker w's interval from the wire, decoding it straight
// into the merged interval (wire.Interval.AddTo).
func (m *merger) addWire(w int, wi *wire.Interval, offset time.Duration) error {
	k := slotKey{phaseIndex(wi.Phase), wi.Seq}
	s := m.pending[k]
	if s == nil {
		s = &slot{iv: measure.Interval{Phase: wi.Phase}, from: make([]bool, m.n)}
		m.pending[k] = s
	}
	err := wi.AddTo(&s.iv, offset)
	s.from[w] = true
	if m.pos[w].less(k) {
		m.pos[w] = k
	}
	m.flush()
	return err
}

// endPhase notes that worker w sent all its intervals of phase.
func (m *merger) endPhase(w int, phase string) {
	m.ended[w][phase] = true
	m.flush()
}

// lose drops worker w from what the merger waits for.
func (m *merger) lose(w int) {
	m.gone[w] = true
	m.flush()
}

// close emits whatever is still pending, in order (the end of the run).
func (m *merger) close() {
	for _, k := range m.sortedKeys() {
		m.emit(m.pending[k].iv)
		delete(m.pending, k)
	}
}

func (m *merger) sortedKeys() []slotKey {
	keys := make([]slotKey, 0, len(m.pending))
	for k := range m.pending {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
	return keys
}

// flush emits the pending intervals every worker has covered, in order,
// up to the first one some worker still owes.
func (m *merger) flush() {
	if len(m.pending) == 0 {
		return
	}
	for _, k := range m.sortedKeys() {
		s := m.pending[k]
		for w := 0; w < m.n; w++ {
			if !(s.from[w] || m.gone[w] || m.ended[w][s.iv.Phase] || k.less(m.pos[w])) {
				return
			}
		}
		m.emit(s.iv)
		delete(m.pending, k)
	}
}

// mergeErrors adds error samples by op, class and message.
func mergeErrors(dst []measure.ErrorSample, src []measure.ErrorSample) []measure.ErrorSample {
	for _, e := range src {
		found := false
		for i := range dst {
			if dst[i].Op == e.Op && dst[i].Class == e.Class && dst[i].Message == e.Message {
				dst[i].Count += e.Count
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, e)
		}
	}
	return dst
}

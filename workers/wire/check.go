package wire

import (
	"fmt"
	"math"
	"slices"

	"github.com/dbrig/dbrig/measure"
)

// Check validates every figure of an interval a worker sent, before it is
// merged: a worker with the token is still not trusted to send sense
// (negative counts were stored as −2,992,594,173 operations). ops are the
// operation names the run knows; nil accepts any name.
func (iv *Interval) Check(ops []string) error {
	switch {
	case !knownPhase(iv.Phase):
		return fmt.Errorf("interval of phase %q: expected %s, %s or %s", iv.Phase, measure.PhaseLoad, measure.PhaseWarmup, measure.PhaseMeasure)
	case iv.Seq < 0 || iv.Dropped < 0 || iv.Late < 0 || iv.Backlog < 0 || iv.LagP99 < 0 || iv.RespP99 < 0:
		return fmt.Errorf("interval %s/%d: a negative sequence number or count", iv.Phase, iv.Seq)
	case iv.TargetRate < 0 || math.IsNaN(iv.TargetRate) || math.IsInf(iv.TargetRate, 0):
		return fmt.Errorf("interval %s/%d: target rate %v", iv.Phase, iv.Seq, iv.TargetRate)
	case iv.End.Before(iv.Start):
		return fmt.Errorf("interval %s/%d: ends before it starts", iv.Phase, iv.Seq)
	}
	for _, o := range iv.Ops {
		if ops != nil && !slices.Contains(ops, o.Op) {
			return fmt.Errorf("interval %s/%d: unknown operation %q", iv.Phase, iv.Seq, o.Op)
		}
		if o.Count < 0 || o.Errors < 0 || o.Errors > o.Count {
			return fmt.Errorf("interval %s/%d: %s: %d operations, %d errors: expected 0 ≤ errors ≤ operations", iv.Phase, iv.Seq, o.Op, o.Count, o.Errors)
		}
		for class, n := range o.Classes {
			if n < 0 {
				return fmt.Errorf("interval %s/%d: %s: %d errors of class %q", iv.Phase, iv.Seq, o.Op, n, class)
			}
		}
	}
	return nil
}

// Check validates a PhaseDone's figures.
func (p *PhaseDone) Check() error {
	switch {
	case !knownPhase(p.Phase):
		return fmt.Errorf("phase_done of phase %q", p.Phase)
	case p.Records < 0 || p.Wanted < 0 || p.RespP50 < 0 || p.RespP99 < 0 || p.LagP99 < 0:
		return fmt.Errorf("phase_done %s: a negative figure", p.Phase)
	}
	return nil
}

func knownPhase(p string) bool {
	return p == measure.PhaseLoad || p == measure.PhaseWarmup || p == measure.PhaseMeasure
}

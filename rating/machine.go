package rating

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/dbrig/dbrig/machine"
)

// The machine's load: on a shared machine other processes take cores from
// the store and from dbrig, and a rating made while they did answers for a
// slower machine than the next one may see. Measured on this project's
// 2-core machine (issue 32): two Pebble ratings back to back gave
// 3,028 … 4,674 and 19,662 … 22,864 ops/s: the machine went quiet between
// them, and the reference read burst rose 3.2× (22 k → 70 k ops/s) while
// the answer rose 5.4×. Each interval was honest about its own runs, yet
// the two did not meet: what a rating answers has to be the store on this
// machine unloaded, and a run that failed while others held the machine
// bounds that only loosely.
//
// So before each experiment (after its reset and settle, when neither dbrig
// nor the store has work of its own), the rating measures for
// MachineWindow which share s of the machine's cores other processes kept
// busy (machine.Others, from /proc/stat and /proc/self/stat). A pass stays
// a pass on the machine unloaded; a failure at target t could have passed
// there up to t × g(s), g(s) = 1 / (1 − s)²: a latency SLA's answer moves
// more than the CPU share (5.4× above for 3.2× of the read burst, which
// follows the share: an exponent of 1.45), and the square covers it. Above
// MaxOthers (g = 4) a failure bounds nothing: the machine was too busy to
// tell what the store can do, and the interval has no upper bound.

// Machine load settings.
const (
	// MachineWindow is how long the machine's load is measured before
	// each experiment (2.5 % resolution at 100 ticks per second on 2 cores
	// in 200 ms; longer sees more of other processes' bursts).
	MachineWindow = 300 * time.Millisecond
	// MaxOthers: a failure while other processes kept more than this share
	// of the machine busy bounds nothing.
	MaxOthers = 0.5
)

// unloaded is g(s): how much more than a failed target the store may do on
// the machine unloaded, when other processes held the share s (0: no bound).
func unloaded(s float64) float64 {
	if s > MaxOthers+1e-12 {
		return 0
	}
	return 1 / ((1 - s) * (1 - s))
}

// MachineLoad is the share of the machine (0 … 1: all its cores) that
// other processes kept busy in the windows before the experiments.
type MachineLoad struct {
	Cores   int     `json:"cores"`
	Windows int     `json:"windows"`
	Mean    float64 `json:"others_mean"`
	Max     float64 `json:"others_max"`
	// Busy: the share exceeded MaxOthers before some experiment.
	Busy bool `json:"busy"`
}

// note adds one window.
func (m *MachineLoad) note(s float64) {
	m.Mean = (m.Mean*float64(m.Windows) + s) / float64(m.Windows+1)
	m.Windows++
	m.Max = math.Max(m.Max, s)
	m.Busy = m.Busy || unloaded(s) == 0
}

// cpuReader reads the machine's and this process's CPU time.
type cpuReader func() (machine.CPU, error)

// machineLoad measures the share of the machine other processes took for
// MachineWindow, records it with the step and in the rating's summary.
// The tests inject the share (Options.others) instead: no wall clock.
func (r *rater) machineLoad(ctx context.Context, st *Step) error {
	if !r.opts.MachineLoad || r.noLoad {
		return nil
	}
	var s float64
	cores := 0
	if r.opts.others != nil {
		s, cores = r.opts.others()
	} else {
		read := r.opts.cpu
		if read == nil {
			read = machine.ReadCPU
		}
		from, err := read()
		if err == nil {
			t := time.NewTimer(MachineWindow)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			var to machine.CPU
			if to, err = read(); err == nil {
				s, cores = machine.Others(from, to), to.Cores
			}
		}
		if err != nil { // not Linux: say so once, rate without it
			r.hooks.Warn(fmt.Errorf("the machine's load is not measured: %w", err))
			r.noLoad = true
			return nil
		}
	}
	st.Others = &s
	if r.res.Load == nil {
		r.res.Load = &MachineLoad{Cores: cores}
	}
	r.res.Load.note(s)
	return nil
}

// describe says how busy other processes kept the machine ("" if not
// measured).
func (m *MachineLoad) describe() string {
	if m == nil || m.Windows == 0 {
		return ""
	}
	s := fmt.Sprintf("other processes kept %.0f%% of this machine's %d cores busy before an experiment on average, %.0f%% at most", m.Mean*100, m.Cores, m.Max*100)
	if m.Busy {
		s += fmt.Sprintf(" (more than %.0f%%: the machine was too busy for some failures to say what the store does on it unloaded)", MaxOthers*100)
	}
	return s
}

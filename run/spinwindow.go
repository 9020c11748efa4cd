package run

import (
	"fmt"
	"slices"
	"time"
)

// spinWindow is how long before an intended start the open model's leader
// stops sleeping and spins. It starts at SpinWait and widens to the recent
// p99.9 of the sleeps' lateness plus spinMargin when this machine's sleeps
// are later than SpinWait covers (an idle vCPU woken by the hypervisor),
// if that is at most spinWidenMax × SpinWait: each µs of the window is a µs
// of a core per operation at rates below 1/window. A tail beyond the bound
// (a loaded host stalling the process for milliseconds) no affordable spin
// covers, and a longer spin there only burns CPU the host lacks: the window
// stays at SpinWait (dbrig selftest's machine floor shows such stalls).
// Only half the time ahead narrows it below SpinWait (window).
//
// Only the holder of the lead sleeps and spins, so only it touches the
// window: the lead channel orders the accesses, no lock is needed.
type spinWindow struct {
	base, cur time.Duration
	late      []time.Duration // ring of the last spinRing sleeps' lateness
	n         int             // sleeps observed
	dirty     int             // observed since cur was computed
	scratch   []time.Duration
	maxSeen   time.Duration // the widest window used
}

const (
	spinRing = 1024 // sleeps the p99.9 is over: about 1 s at 1,000 ops/s
	// spinRecompute is how many sleeps between recomputing the window.
	spinRecompute = 128
	// spinMargin covers the hand-off (the leader passes the lead
	// handoffLead before the start) and a little more.
	spinMargin = handoffLead + 10*time.Microsecond
	// spinWidenMax bounds the window, and so its CPU cost, at this many
	// times SpinWait.
	spinWidenMax = 2
)

func newSpinWindow(base time.Duration) *spinWindow {
	return &spinWindow{base: base, cur: base, maxSeen: base}
}

// window is the current spin window. When the leader has time to spare
// before it must sleep (ahead: until the intended start), it recomputes the
// window from the recent lateness first, not in the hand-off's path.
//
// Any window, SpinWait's too, is at most half the time ahead (about the
// gap between arrivals): a leader's spin must not overlap the next
// leader's. Overlapping, two spinning threads take both cores of a small
// machine and the host stalls them (measured on the 2-core VM at 1,000
// ops/s: a window of ~800 µs tripled the CPU and made more starts late,
// not fewer); and a spinner that is always runnable keeps Go's scheduler
// from polling the network, so replies wait to be noticed (measured
// against PostgreSQL at 8,000 ops/s, 16 clients, arrivals 125 µs apart: a
// 200 µs window gave a response-time p50 of 0.93–1.16 ms, half the gap
// 0.16–0.29 ms, nine runs each, pinned to one CPU or not).
func (w *spinWindow) window(ahead time.Duration) time.Duration {
	if w.base > 0 && w.dirty >= spinRecompute && ahead > 2*w.cur+100*time.Microsecond {
		w.recompute()
	}
	win := min(w.cur, max(ahead/2, 0))
	w.maxSeen = max(w.maxSeen, win)
	return win
}

func (w *spinWindow) recompute() {
	w.dirty = 0
	w.scratch = append(w.scratch[:0], w.late...)
	slices.Sort(w.scratch)
	p999 := w.scratch[int(0.999*float64(len(w.scratch)-1)+0.5)]
	w.cur = w.base
	if want := p999 + spinMargin; want <= spinWidenMax*w.base {
		w.cur = max(w.base, want)
	}
}

// observe records that a sleep meant to end at the window's start returned
// late.
func (w *spinWindow) observe(late time.Duration) {
	late = max(late, 0)
	if len(w.late) < spinRing {
		w.late = append(w.late, late)
	} else {
		w.late[w.n%spinRing] = late
	}
	w.n++
	w.dirty++
}

// String reports the window for the phase's end detail: the base, the
// last and widest window and the sleeps' recent lateness.
func (w *spinWindow) String() string {
	if len(w.late) == 0 {
		return fmt.Sprintf("spin_window_us=%d spin_window_max_us=%d sleeps=0", w.cur.Microseconds(), w.maxSeen.Microseconds())
	}
	w.scratch = append(w.scratch[:0], w.late...)
	slices.Sort(w.scratch)
	q := func(p float64) int64 { return w.scratch[int(p*float64(len(w.scratch)-1)+0.5)].Microseconds() }
	return fmt.Sprintf("spin_window_us=%d spin_window_max_us=%d sleeps=%d sleep_late_p50_us=%d sleep_late_p99_us=%d sleep_late_p999_us=%d",
		w.cur.Microseconds(), w.maxSeen.Microseconds(), w.n, q(0.5), q(0.99), q(0.999))
}

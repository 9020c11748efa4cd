package run

import (
	"runtime"
	"sync"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/loadmodel"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workload"
)

// Closed is the closed load model: each client issues its operations back to
// back (plus ThinkTime), or on its own evenly spaced schedule when Rate is
// set, so that the clients' schedules interleave into one even schedule at
// Rate ops/s in total. Each client counts its own operations: no shared
// counter, channel or lock per operation, so adding clients does not slow
// the harness.
type Closed struct {
	Rate      float64       // total ops/s; 0 = as fast as possible
	ThinkTime time.Duration // pause after each operation (without Rate only)
}

// Settings implements Model.
func (m Closed) Settings() loadmodel.Load {
	return loadmodel.Load{Model: ClosedName, Rate: m.Rate, Arrival: ConstantName, ThinkTime: m.ThinkTime}
}

func (m Closed) targetRate(_, _ time.Duration) float64 { return m.Rate }

// Check implements Model.
func (m Closed) Check(clients int) error {
	if err := checkRate("rate", m.Rate); err != nil {
		return err
	}
	switch {
	case m.ThinkTime < 0:
		return &ConfigError{Field: "think time", Value: m.ThinkTime, Want: "must not be negative"}
	case m.ThinkTime > 0 && m.Rate > 0:
		return &ConfigError{Field: "think time", Value: m.ThinkTime, Want: "applies to the closed model without a rate only"}
	}
	return nil
}

func (m Closed) drive(ph *phase, ops int64) string {
	n := int64(len(ph.clients))
	var wg sync.WaitGroup
	for i, wc := range ph.clients {
		quota := int64(-1)
		if ops > 0 {
			// Split exactly: the first ops%n clients do one more.
			quota = ops / n
			if int64(i) < ops%n {
				quota++
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.client(ph, i, wc, ph.shard(i), quota)
		}()
	}
	wg.Wait()
	return ""
}

// client runs one client. With a rate, operation k of client i is intended
// at start + (i + k·n)/rate; a stall shows as response time (end − intended)
// while service time (end − actual start) stays what the system took.
func (m Closed) client(ph *phase, i int, wc workload.Client, mc *measure.Shard, quota int64) {
	n := len(ph.clients)
	rate, think := m.Rate, m.ThinkTime
	// A workload.Pacer chooses its own pause (TPC-C's keying and think
	// times), without a rate.
	pacer, paced := wc.(workload.Pacer)
	paced = paced && rate == 0
	var timer *time.Timer
	if rate > 0 || think > 0 || paced {
		timer = time.NewTimer(time.Hour)
		defer timer.Stop()
	}
	// Precise (thread-blocking) sleeps only while threads are few.
	precise := n <= 4*runtime.GOMAXPROCS(0)
	spin := pacedSpin(ph.cfg.SpinWait, rate)
	_, aware := ph.db.(driver.ScheduleAware)
	var prevEnd time.Time
	for k := int64(0); quota < 0 || k < quota; k++ {
		if ph.stopped.Load() {
			return
		}
		var intended time.Time
		switch {
		case rate > 0:
			intended = ph.start.Add(time.Duration(float64(int64(i)+k*int64(n)) * 1e9 / rate))
		case paced:
			if pause := pacer.Pause(); pause > 0 {
				if k == 0 {
					prevEnd = time.Now()
				}
				intended = prevEnd.Add(pause)
			}
		case think > 0 && k > 0:
			intended = prevEnd.Add(think)
		}
		if !intended.IsZero() {
			if ph.expired(intended) {
				ph.holdUntilDeadline(timer)
				return
			}
			if !ph.sleepUntil(timer, intended, spin, precise) {
				return
			}
		}
		started := time.Now()
		if ph.expired(started) {
			return
		}
		if intended.IsZero() {
			intended = started
		}
		op, err := ph.do(wc, intended, aware)
		// Ready when due and free: a client still busy with the previous
		// operation is the system's doing, not the generator's.
		ready := intended
		if prevEnd.After(ready) {
			ready = prevEnd
		}
		prevEnd = time.Now()
		mc.RecordReady(measure.Op(op), intended, ready, started, prevEnd, err)
	}
}

// pacedSpin is how long a closed client spins before a start: SpinWait, but
// at a rate the pool's starts interleave, and a spin longer than half the
// gap between them would overlap the next client's (spinwindow.go).
func pacedSpin(spinWait time.Duration, rate float64) time.Duration {
	if rate > 0 {
		return min(spinWait, time.Duration(0.5e9/rate))
	}
	return spinWait
}

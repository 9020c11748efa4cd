package run

import (
	"runtime"
	"sync"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/workload"
)

// closedPhase runs the closed model: each client issues its operations back
// to back (plus think time), or on its own evenly spaced schedule when a rate
// is set. Each client counts its own operations: no shared counter, channel
// or lock per operation, so adding clients does not slow the harness.
type closedPhase struct {
	ph      *phase
	db      driver.DB
	clients []workload.Client
	cfg     Config
	ops     int64 // 0: no count bound
}

func (c *closedPhase) run() {
	n := int64(len(c.clients))
	var wg sync.WaitGroup
	for i, wc := range c.clients {
		quota := int64(-1)
		if c.ops > 0 {
			// Split exactly: the first ops%n clients do one more.
			quota = c.ops / n
			if int64(i) < c.ops%n {
				quota++
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.client(i, wc, c.ph.recClient(i), quota)
		}()
	}
	wg.Wait()
}

// client runs one client. With a rate, operation k of client i is intended
// at start + (i + k·n)/rate: the clients' schedules interleave into one even
// schedule at the total rate, and a stall shows as response time (end −
// intended) while service time (end − actual start) stays what the system
// took.
func (c *closedPhase) client(i int, wc workload.Client, mc *measure.Shard, quota int64) {
	ph := c.ph
	n := len(c.clients)
	rate, think := c.cfg.Rate, c.cfg.ThinkTime
	var timer *time.Timer
	if rate > 0 || think > 0 {
		timer = time.NewTimer(time.Hour)
		defer timer.Stop()
	}
	// Precise (thread-blocking) sleeps only while threads are few.
	precise := n <= 4*runtime.GOMAXPROCS(0)
	_, aware := c.db.(driver.ScheduleAware)
	var prevEnd time.Time
	for k := int64(0); quota < 0 || k < quota; k++ {
		if ph.stopped.Load() {
			return
		}
		var intended time.Time
		switch {
		case rate > 0:
			intended = ph.start.Add(time.Duration(float64(int64(i)+k*int64(n)) * 1e9 / rate))
		case think > 0 && k > 0:
			intended = prevEnd.Add(think)
		}
		if !intended.IsZero() {
			if ph.expired(intended) || !ph.sleepUntil(timer, intended, precise) {
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
		op, err := do(ph.work, wc, c.db, c.cfg.OpTimeout, intended, aware)
		prevEnd = time.Now()
		mc.Record(measure.Op(op), intended, started, prevEnd, err)
	}
}

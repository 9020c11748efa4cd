package nodestat

import (
	"context"
	"errors"
	"os"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat. The kernel fixes
// USER_HZ at 100 for the /proc ABI on every Linux architecture, whatever
// CONFIG_HZ is, so there is no need for sysconf(_SC_CLK_TCK) through cgo.
const userHZ = 100

// Target is one process to sample.
type Target struct {
	Name string // node name, or "dbrig" for ourselves
	PID  int
	// Tree sums PID and all its descendants. PostgreSQL does its work in
	// forked backends, so its postmaster alone shows almost nothing.
	Tree bool
}

// Self is a target for the calling process.
func Self() Target { return Target{Name: "dbrig", PID: os.Getpid()} }

// Counters are cumulative per-process counters.
type Counters struct {
	ReadBytes, WriteBytes          uint64 // storage I/O (/proc/PID/io read_bytes, write_bytes)
	RChar, WChar                   uint64 // bytes through read/write calls, sockets included
	VoluntaryCtxt, InvoluntaryCtxt uint64 // context switches (/proc/PID/status)
}

func (c Counters) sub(o Counters) Counters {
	d := func(a, b uint64) uint64 {
		if a < b { // a process of the tree exited: its counts left the sum
			return 0
		}
		return a - b
	}
	return Counters{
		ReadBytes: d(c.ReadBytes, o.ReadBytes), WriteBytes: d(c.WriteBytes, o.WriteBytes),
		RChar: d(c.RChar, o.RChar), WChar: d(c.WChar, o.WChar),
		VoluntaryCtxt: d(c.VoluntaryCtxt, o.VoluntaryCtxt), InvoluntaryCtxt: d(c.InvoluntaryCtxt, o.InvoluntaryCtxt),
	}
}

// Sample is one target over one interval.
type Sample struct {
	Time    time.Time
	Node    string
	PID     int
	Gone    bool          // the process exited; sent once, then the target is dropped
	Elapsed time.Duration // since the previous sample of this target
	// CPU over the interval in percent of one CPU (200 = two cores busy).
	UserPct, SystemPct float64
	RSS                uint64 // resident bytes; for a tree the sum, which counts shared pages once per process
	FDs                int    // open file descriptors
	Procs              int    // processes counted (1 unless Tree)
	Total              Counters
	Delta              Counters // Total minus the previous sample's Total
	// Err is a read that failed for another reason than the process being
	// gone (e.g. no right to read /proc/PID/io); the figures it would have
	// given are zero. Sent with each sample, not as a separate event.
	Err error
}

// reading is the raw state of a target at one instant.
type reading struct {
	at         time.Time
	user, sys  uint64 // ticks, including reaped children for groups
	rss        uint64
	fds, procs int
	c          Counters
	err        error
}

// Run samples every target every interval and calls fn with each sample, in
// the goroutine that called Run, until ctx is done. The first samples come
// one interval after Run starts (CPU figures need two readings). A target
// whose process exits yields one Sample with Gone set and is then dropped.
// Run returns nil when ctx is done (a finished sampling is not a failure),
// or at once when there is nothing to sample.
func Run(ctx context.Context, interval time.Duration, targets []Target, fn func(Sample)) error {
	return Sampler{}.Run(ctx, interval, targets, fn)
}

// Sampler samples through Proc (the zero value reads /proc).
type Sampler struct {
	Proc Proc
}

// Run is the package-level Run through s.Proc.
func (s Sampler) Run(ctx context.Context, interval time.Duration, targets []Target, fn func(Sample)) error {
	if interval <= 0 {
		interval = time.Second
	}
	prev := make(map[int]reading, len(targets))
	live := make([]Target, 0, len(targets))
	for _, t := range targets {
		r := s.read(t)
		if errors.Is(r.err, ErrGone) {
			fn(Sample{Time: r.at, Node: t.Name, PID: t.PID, Gone: true})
			continue
		}
		prev[t.PID] = r
		live = append(live, t)
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for len(live) > 0 {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		keep := live[:0]
		for _, t := range live {
			r := s.read(t)
			if errors.Is(r.err, ErrGone) {
				fn(Sample{Time: r.at, Node: t.Name, PID: t.PID, Gone: true})
				delete(prev, t.PID)
				continue
			}
			fn(diff(t, prev[t.PID], r))
			prev[t.PID] = r
			keep = append(keep, t)
		}
		live = keep
	}
	return nil
}

func diff(t Target, a, b reading) Sample {
	el := b.at.Sub(a.at)
	pct := func(x, y uint64) float64 {
		if y < x || el <= 0 {
			return 0
		}
		return float64(y-x) / userHZ / el.Seconds() * 100
	}
	return Sample{
		Time: b.at, Node: t.Name, PID: t.PID, Elapsed: el,
		UserPct: pct(a.user, b.user), SystemPct: pct(a.sys, b.sys),
		RSS: b.rss, FDs: b.fds, Procs: b.procs,
		Total: b.c, Delta: b.c.sub(a.c), Err: b.err,
	}
}

// read takes one reading of t. Its err is ErrGone when the leading process
// exited; other errors (permissions) leave figures at zero but keep going.
func (s Sampler) read(t Target) reading {
	r := reading{at: time.Now()}
	lead, err := s.Proc.Stat(t.PID)
	if err != nil {
		r.err = err
		return r
	}
	pids := []int{t.PID}
	if t.Tree {
		if g, err := s.Proc.Tree(t.PID); err == nil {
			pids = g
		}
		// Children the leader reaped took their CPU time into its cutime/cstime.
		r.user, r.sys = lead.CUTime, lead.CSTime
	}
	for _, pid := range pids {
		st := lead
		if pid != t.PID {
			if st, err = s.Proc.Stat(pid); err != nil {
				continue // exited between the scan and now
			}
		}
		r.procs++
		r.user += st.UTime
		r.sys += st.STime
		if ss, err := s.Proc.Status(pid); err == nil {
			r.rss += ss.RSSBytes
		} else if !errors.Is(err, ErrGone) && r.err == nil {
			r.err = err
		}
		if v, iv, err := s.Proc.CtxSwitches(pid); err == nil {
			r.c.VoluntaryCtxt += v
			r.c.InvoluntaryCtxt += iv
		} else if !errors.Is(err, ErrGone) && r.err == nil {
			r.err = err
		}
		if io, err := s.Proc.IO(pid); err == nil {
			r.c.ReadBytes += io.ReadBytes
			r.c.WriteBytes += io.WriteBytes
			r.c.RChar += io.RChar
			r.c.WChar += io.WChar
		} else if !errors.Is(err, ErrGone) && r.err == nil {
			r.err = err
		}
		if n, err := s.Proc.FDs(pid); err == nil {
			r.fds += n
		} else if !errors.Is(err, ErrGone) && r.err == nil {
			r.err = err
		}
	}
	return r
}

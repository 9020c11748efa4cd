package analysis

import (
	"math"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// Window is what a stretch of the measure phase looked like: response-time
// percentiles of every operation in it, throughput of successful
// operations, and errors.
type Window struct {
	From, To           time.Duration // since the run's start
	P50, P95, P99, Max int64         // µs
	Throughput         float64       // successful operations per second
	Ops, Errors        int64
	// Secs is how much stored measurement the window covers, in seconds:
	// 0 when nothing of it was measured (its figures are not zeros then).
	Secs float64
}

// Impact is what one fault cost, read from the stored run (so it can be
// computed again later): the baseline (the calm before the run's first
// fault), the fault window, the window after it heals, and how long the
// system took to recover.
//
// Recovery follows the seed thesis's rule — an operation is slow when it
// takes longer than the baseline's mean + RecoverySigmas σ (operation
// latencies, not per-second figures) — read from the stored per-second
// histograms: recovery starts at the fault and ends at the first of
// RecoveryHold consecutive seconds in which no operation failed and no more
// operations were slow than in the baseline (at most twice its share of
// slow operations, and at least 1 %, with room for chance; see calm). A
// calm system has a few slow operations every second; "every operation
// within the bound", taken literally, would call a healthy system at
// hundreds of ops/s unrecovered.
type Impact struct {
	Fault, Detail, Outcome string
	// NotFired: the fault failed to fire (Outcome says why); it has no
	// figures, and fails every verdict.
	NotFired                bool
	Start, End              time.Duration // since the run's start; End = Start for a kill
	Baseline, During, After Window
	ThroughputChangePct     float64 // During against Baseline
	// Response-time percentiles During against Baseline, in percent
	// (0 when the baseline has none: see Figure).
	P50ChangePct, P95ChangePct, P99ChangePct float64
	UnavailableS                             int            // seconds after the fault with no successful operation
	Recovery                                 *time.Duration // nil: not recovered (RecoveryCut says why)
	// RecoveryCut says why Recovery is nil: RecoveryCutNextFault or
	// RecoveryCutEndOfRun when the window ended first (RecoveryAtLeast
	// then is how long recovery could be watched: it took longer),
	// RecoveryCutNeverCalm when the baseline had no calm second to recover
	// to. "" when it recovered.
	RecoveryCut     string
	RecoveryAtLeast time.Duration
	Threshold       int64   // µs: an operation slower than this is slow (baseline mean + 2σ)
	SlowShare       float64 // the share of slow operations a calm second may have
	// Precise is set when Recovery, Threshold and UnavailableMS come from
	// the per-operation timeline (see Precise); else they are per second
	// and UnavailableMS is UnavailableS in ms.
	Precise       bool
	UnavailableMS int64
	// Shares are the nodes' shares of the client traffic in each window
	// (share.go); nil when the run stored none.
	Shares []NodeShare
	// Lags are the replicas' replication lag around the fault
	// (replication.go); nil when the run sampled none.
	Lags []ReplicaLag
	// cut is what ends the window after the fault (RecoveryCutNextFault or
	// RecoveryCutEndOfRun), kept for Precise.
	cut string
}

// Why a recovery could not be measured (Impact.RecoveryCut).
const (
	RecoveryCutNextFault = "next fault" // the next fault struck before RecoveryHold calm seconds
	RecoveryCutEndOfRun  = "end of run" // the measure phase ended first
	RecoveryCutNeverCalm = "never calm" // no calm baseline second: nothing to recover to
)

// RunImpacts is Impacts refined by the run's per-operation timeline when
// it has one (Precise: unavailable time in ms, recovery per operation),
// as dbrig bench computed and stored them: what reports and the dashboard
// show.
func RunImpacts(r Run) []Impact {
	ims := Impacts(r)
	if len(r.Timeline) > 0 {
		ims = Precise(ims, r.Timeline)
	}
	return ims
}

// hasFaults tells whether a stored run had faults injected.
func hasFaults(d *results.RunDetail) bool {
	for _, e := range d.Events {
		if e.Kind == "fault" || e.Kind == "fault_start" {
			return true
		}
	}
	return false
}

// Recovery rule parameters.
const (
	RecoveryHold   = 5 // seconds that must stay within the bound
	RecoverySigmas = 2.0
)

// Impacts computes the impact of every fault of a run: events of kind fault
// (instant) or fault_start … fault_end (lasting, same name).
func Impacts(r Run) []Impact {
	d := r.Detail
	var out []Impact
	var measureStart, measureEnd time.Duration = -1, -1
	for _, e := range d.Events {
		at := e.Time.Sub(d.Start)
		switch {
		case e.Kind == "phase_start" && e.Name == measure.PhaseMeasure:
			measureStart = at
		case e.Kind == "phase_end" && e.Name == measure.PhaseMeasure:
			measureEnd = at
		}
	}
	seconds := faultSecondsOf(r.Intervals)
	// The baseline is the calm before the first fault: a later fault's own
	// "before" may still be the previous one's aftermath.
	firstFault := time.Duration(-1)
	isStart := func(e results.Event) bool { return e.Kind == "fault" || e.Kind == "fault_start" }
	for _, e := range d.Events {
		if isStart(e) && !notFired(e) {
			firstFault = e.Time.Sub(d.Start)
			break
		}
	}
	for i, e := range d.Events {
		if !isStart(e) {
			continue
		}
		im := Impact{Fault: e.Name, Detail: e.Detail, Outcome: e.Outcome, Start: e.Time.Sub(d.Start)}
		im.End = im.Start
		if notFired(e) {
			im.NotFired = true // no figure for what did not happen
			out = append(out, im)
			continue
		}
		if e.Kind == "fault_start" {
			for _, f := range d.Events[i+1:] {
				if f.Kind == "fault_end" && f.Name == e.Name {
					im.End = f.Time.Sub(d.Start)
					break
				}
			}
		}
		next := measureEnd
		im.cut = RecoveryCutEndOfRun
		for _, f := range d.Events[i+1:] {
			if isStart(f) {
				next, im.cut = f.Time.Sub(d.Start), RecoveryCutNextFault
				break
			}
		}
		if next < 0 {
			next = lastEnd(seconds)
		}
		from := measureStart
		if from < 0 {
			from = 0
		}
		// The fault's own second(s): at least one, so an instant kill has
		// a window of what followed it directly.
		duringEnd := max(im.End, im.Start+time.Second)
		im.Baseline = window(seconds, from, firstFault)
		im.During = window(seconds, im.Start, duringEnd)
		im.After = window(seconds, duringEnd, next)
		im.ThroughputChangePct = changePct(im.Baseline.Throughput, im.During.Throughput)
		im.P50ChangePct = changePct(float64(im.Baseline.P50), float64(im.During.P50))
		im.P95ChangePct = changePct(float64(im.Baseline.P95), float64(im.During.P95))
		im.P99ChangePct = changePct(float64(im.Baseline.P99), float64(im.During.P99))
		rc := recovery(seconds, from, firstFault, im.Start, next)
		im.Threshold, im.SlowShare, im.Recovery, im.UnavailableS = rc.threshold, rc.allowed, rc.rec, rc.unavailable
		im.UnavailableMS = int64(im.UnavailableS) * 1000
		if im.Recovery == nil {
			im.RecoveryCut, im.RecoveryAtLeast = RecoveryCutNeverCalm, 0
			if rc.steady {
				im.RecoveryCut, im.RecoveryAtLeast = im.cut, max(next-im.Start-RecoveryHold*time.Second, 0)
			}
		}
		im.Shares = shares(dataTraffic(r.Traffic, r.Nodes), [3]span{{from, firstFault}, {im.Start, duringEnd}, {duringEnd, next}})
		im.Lags = replicaLags(r.Gauges, from, firstFault, im.Start, im.End, next)
		out = append(out, im)
	}
	return out
}

// faultSecond is one stored interval with its operations merged.
type faultSecond struct {
	from, to    time.Duration
	ops, errors int64
	p99         int64
	hist        *hdr.Histogram
}

// faultSecondsOf merges each measure interval's operation rows.
func faultSecondsOf(rows []results.IntervalRow) []faultSecond {
	var out []faultSecond
	idx := map[time.Duration]int{}
	for _, r := range rows {
		if r.Phase != measure.PhaseMeasure {
			continue
		}
		if r.Length < 500*time.Millisecond {
			continue // the last, partial interval of a phase: too short to judge
		}
		i, ok := idx[r.T]
		if !ok {
			i = len(out)
			idx[r.T] = i
			out = append(out, faultSecond{from: r.T - r.Length, to: r.T})
		}
		s := &out[i]
		if r.Op == measure.OverallOp {
			// A lost compare-and-swap or a missing key is the workload's
			// doing, not the fault's: only the other classes count.
			s.ops, s.errors, s.p99 = r.Count, r.Errors-r.Classes["conflict"]-r.Classes["not_found"], r.P99US
			continue
		}
		if h, err := r.Histogram(); err == nil && h != nil {
			if s.hist == nil {
				s.hist = measure.NewHistogram()
			}
			s.hist.Merge(h)
		}
	}
	return out
}

func lastEnd(ss []faultSecond) time.Duration {
	if len(ss) == 0 {
		return 0
	}
	return ss[len(ss)-1].to
}

// window merges the seconds that lie mostly within [from, to).
func window(ss []faultSecond, from, to time.Duration) Window {
	w := Window{From: from, To: to}
	h := measure.NewHistogram()
	var secs float64
	for _, s := range ss {
		mid := s.from + (s.to-s.from)/2
		if mid < from || mid >= to {
			continue
		}
		w.Ops += s.ops
		w.Errors += s.errors
		secs += (s.to - s.from).Seconds()
		if s.hist != nil {
			h.Merge(s.hist)
		}
	}
	w.Secs = secs
	if secs > 0 {
		w.Throughput = float64(w.Ops-w.Errors) / secs
	}
	st := measure.StatsOf(h)
	w.P50, w.P95, w.P99, w.Max = st.P50, st.P95, st.P99, st.Max
	return w
}

func changePct(base, v float64) float64 {
	if base == 0 {
		return 0
	}
	return 100 * (v - base) / base
}

// recovered is what recovery found.
type recovered struct {
	threshold   int64
	allowed     float64
	rec         *time.Duration
	unavailable int
	steady      bool // some baseline second was calm by the same rule
}

// recovery applies the rule of Impact to the seconds from the fault on.
func recovery(ss []faultSecond, from, calmEnd, start, end time.Duration) recovered {
	base := measure.NewHistogram()
	for _, s := range ss {
		if s.from >= from && s.to <= calmEnd && s.hist != nil {
			base.Merge(s.hist)
		}
	}
	var r recovered
	r.threshold = CalmBound(base.Mean(), base.StdDev())
	r.allowed = max(2*slowShare(base, r.threshold), 0.01)
	good := func(s faultSecond) bool {
		return s.ops > 0 && s.errors == 0 && s.hist != nil && calm(s.hist, r.threshold, r.allowed)
	}
	for _, s := range ss {
		if s.from >= from && s.to <= calmEnd && good(s) {
			r.steady = true
			break
		}
	}
	held := 0
	var since time.Duration
	for _, s := range ss {
		if s.to <= start || s.from >= end {
			continue
		}
		if s.ops-s.errors <= 0 {
			r.unavailable++
		}
		switch good := good(s); {
		case !good:
			held = 0
		case held == 0:
			since, held = s.from, 1
		default:
			held++
		}
		if held == RecoveryHold && r.rec == nil {
			d := max(since-start, 0)
			r.rec = &d
		}
	}
	return r
}

// calm tells whether a second had no more slow operations (above t) than
// the allowed share lets a calm second have, with room for chance: at a
// few hundred operations a second, a share of 2 % is 4 ± 2 operations, so
// the bound is n·p + 3·√(n·p) + 1.
func calm(h *hdr.Histogram, t int64, allowed float64) bool {
	n := float64(h.TotalCount())
	slow := slowShare(h, t) * n
	expect := n * allowed
	return slow <= expect+3*math.Sqrt(expect)+1
}

// slowShare is the share of a histogram's values above t.
func slowShare(h *hdr.Histogram, t int64) float64 {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	var slow int64
	for _, b := range h.Distribution() {
		if b.From > t {
			slow += b.Count
		}
	}
	return float64(slow) / float64(h.TotalCount())
}

// CalmBound is the upper bound of a calm value: a calm sample's mean +
// RecoverySigmas σ, rounded up. It is Impact's Threshold (over the
// baseline's operations) and the band of a scenario's stable trigger (over
// the calm seconds' p99s): one rule, one home.
func CalmBound(mean, sd float64) int64 {
	return int64(math.Ceil(mean + RecoverySigmas*sd))
}

// MeanSD is the mean and the (population) standard deviation of v; 0, 0
// for none.
func MeanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return 0, 0
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	mean = sum / float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)))
}

// Precise refines impacts computed from the stored seconds with the run's
// per-operation timeline (results.Timeline; ops sorted by intended start),
// to millisecond resolution:
//
//   - UnavailableMS: the longest stretch, from the fault to the end of its
//     after window, in which no operation completed successfully;
//   - Recovery, by the seed thesis's rule per operation: an operation is bad
//     when it failed or took longer than the baseline's mean + RecoverySigmas
//     σ (Threshold, from the baseline's operations); recovery starts at the
//     first of RecoveryRun consecutive bad operations after the fault and
//     ends at the first operation from which RecoveryHold seconds pass with
//     no failure and no more slow operations than a calm second allows (the
//     baseline's share, as in calm); nil when that never happens before the
//     window ends, 0 when no such run of bad operations began.
//
// Impacts without operations in the timeline are left as they were.
func Precise(ims []Impact, ops []results.TimedOp) []Impact {
	out := append([]Impact(nil), ims...)
	for i := range out {
		im := &out[i]
		if im.NotFired {
			continue
		}
		from, to := im.Baseline.From.Microseconds(), im.Baseline.To.Microseconds()
		start, until := im.Start.Microseconds(), im.After.To.Microseconds()
		var base []float64
		var window []results.TimedOp
		for _, o := range ops {
			switch {
			case o.StartUS >= from && o.StartUS < to && o.OK:
				base = append(base, float64(o.LatencyUS))
			case o.StartUS >= start && o.StartUS < until:
				window = append(window, o)
			}
		}
		if len(window) == 0 || len(base) == 0 {
			continue
		}
		threshold := CalmBound(MeanSD(base))
		slow := 0
		for _, l := range base {
			if int64(l) > threshold {
				slow++
			}
		}
		allowed := max(2*float64(slow)/float64(len(base)), 0.01)
		im.Threshold, im.SlowShare, im.Precise = threshold, allowed, true
		im.UnavailableMS = longestOutage(window, start, until)
		var atLeast time.Duration
		im.Recovery, atLeast = opRecovery(window, threshold, allowed, until)
		switch {
		case im.Recovery != nil:
			im.RecoveryCut, im.RecoveryAtLeast = "", 0
		case im.RecoveryCut != RecoveryCutNeverCalm:
			im.RecoveryCut, im.RecoveryAtLeast = im.cut, atLeast
		}
	}
	return out
}

// RecoveryRun is how many bad operations in a row start a recovery.
const RecoveryRun = 5

// longestOutage is the longest stretch (ms) within [start, until) µs with no
// successful completion.
func longestOutage(ops []results.TimedOp, start, until int64) int64 {
	var ends []int64
	for _, o := range ops {
		if e := o.EndUS(); o.OK && e >= start && e < until {
			ends = append(ends, e)
		}
	}
	sort.Slice(ends, func(i, j int) bool { return ends[i] < ends[j] })
	prev, longest := start, int64(0)
	for _, e := range ends {
		longest = max(longest, e-prev)
		prev = e
	}
	longest = max(longest, until-prev)
	return longest / 1000
}

// opRecovery applies the per-operation rule (see Precise) to ops sorted by
// intended start. Without a recovery before until, atLeast is how long
// after its first bad operations recovery could be watched.
func opRecovery(ops []results.TimedOp, threshold int64, allowed float64, until int64) (rec *time.Duration, atLeast time.Duration) {
	bad := func(o results.TimedOp) bool { return !o.OK || o.LatencyUS > threshold }
	begin := -1
	for i, run := 0, 0; i < len(ops); i++ {
		if !bad(ops[i]) {
			run = 0
			continue
		}
		if run++; run == RecoveryRun {
			begin = i - RecoveryRun + 1
			break
		}
	}
	if begin < 0 {
		zero := time.Duration(0)
		return &zero, 0
	}
	hold := int64(RecoveryHold) * 1e6
	atLeast = time.Duration(max(until-hold-ops[begin].StartUS, 0)) * time.Microsecond
	// Two pointers: [j, k) are the operations within hold of ops[j].
	k, failed, slow := begin, 0, 0
	for j := begin; j < len(ops); j++ {
		if ops[j].StartUS+hold > until {
			return nil, atLeast
		}
		for k < len(ops) && ops[k].StartUS < ops[j].StartUS+hold {
			if !ops[k].OK {
				failed++
			} else if ops[k].LatencyUS > threshold {
				slow++
			}
			k++
		}
		n := float64(k - j)
		expect := n * allowed
		if j > begin && failed == 0 && float64(slow) <= expect+3*math.Sqrt(expect)+1 {
			d := time.Duration(ops[j].StartUS-ops[begin].StartUS) * time.Microsecond
			return &d, 0
		}
		if !ops[j].OK {
			failed--
		} else if ops[j].LatencyUS > threshold {
			slow--
		}
	}
	return nil, atLeast
}

// Stat is the median and range of one figure over repeated runs.
type Stat struct {
	Median, Min, Max float64
	N                int // runs the figure exists in
}

// Spread is what one fault cost over repeated runs of one experiment
// (repeat: N, with cycle_targets: true on a different node each time).
type Spread struct {
	Fault                                                      string
	Runs                                                       int
	Recovered                                                  int  // runs in which it recovered
	Recovery, UnavailableMS, P99ChangePct, ThroughputChangePct Stat // recovery in seconds, over the recovered runs
}

// Spreads gathers each fault's figures (by name, in order of first
// appearance) over the impacts of repeated runs.
func Spreads(runs [][]Impact) []Spread {
	var order []string
	figs := map[string]*[4][]float64{}
	count := map[string]int{}
	for _, ims := range runs {
		for _, im := range ims {
			f, ok := figs[im.Fault]
			if !ok {
				f = &[4][]float64{}
				figs[im.Fault] = f
				order = append(order, im.Fault)
			}
			count[im.Fault]++
			if im.Recovery != nil {
				f[0] = append(f[0], im.Recovery.Seconds())
			}
			f[1] = append(f[1], float64(im.UnavailableMS))
			f[2] = append(f[2], im.P99ChangePct)
			f[3] = append(f[3], im.ThroughputChangePct)
		}
	}
	out := make([]Spread, 0, len(order))
	for _, name := range order {
		f := figs[name]
		out = append(out, Spread{Fault: name, Runs: count[name], Recovered: len(f[0]),
			Recovery: statOf(f[0]), UnavailableMS: statOf(f[1]), P99ChangePct: statOf(f[2]), ThroughputChangePct: statOf(f[3])})
	}
	return out
}

// statOf is the median (the mean of the middle two for an even count),
// minimum and maximum of v.
func statOf(v []float64) Stat {
	if len(v) == 0 {
		return Stat{}
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Stat{Median: m, Min: s[0], Max: s[len(s)-1], N: len(s)}
}

// notFired tells a fault event whose injection failed: nothing happened to
// the system, so there is no impact to measure.
func notFired(e results.Event) bool { return strings.HasPrefix(e.Outcome, "failed") }

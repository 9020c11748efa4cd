package sim

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Model is the simulated server: one FIFO queue in front of a server with a
// fixed service time, plus a fixed latency that does not occupy the server
// (the network, say), plus hiccups during which the server serves nothing.
// The live store and Predict both run it through the same queue code, so what
// Predict computes is what the store does, less the clock's own jitter.
type Model struct {
	// Capacity is how many operations per second the server completes;
	// 0 means unlimited: no service time and no queue.
	Capacity float64
	// Latency is added to every operation after the server is done with it.
	Latency time.Duration
	// Hiccups are windows (relative to the store's origin, i.e. when it was
	// opened) during which the server stalls; in any order, overlapping
	// ones act as one.
	Hiccups []Hiccup
}

// Hiccup is a window during which the server serves nothing.
type Hiccup struct {
	Start    time.Duration // from the origin
	Duration time.Duration
}

// End is when the server resumes.
func (h Hiccup) End() time.Duration { return h.Start + h.Duration }

func (h Hiccup) String() string { return h.Start.String() + "+" + h.Duration.String() }

// ServiceTime is how long one operation occupies the server: 1/Capacity.
func (m Model) ServiceTime() time.Duration {
	if m.Capacity <= 0 {
		return 0
	}
	return time.Duration(math.Round(float64(time.Second) / m.Capacity))
}

// trivial tells that the model never delays anything, so the store can skip
// the clock and the lock altogether.
func (m Model) trivial() bool {
	return m.Capacity <= 0 && m.Latency <= 0 && len(m.Hiccups) == 0
}

func (m Model) String() string {
	hs := make([]string, len(m.Hiccups))
	for i, h := range m.Hiccups {
		hs[i] = h.String()
	}
	return fmt.Sprintf("capacity=%g/s latency=%v hiccups=%s", m.Capacity, m.Latency, strings.Join(hs, ","))
}

// ParseHiccups parses "START+DURATION,..." (e.g. "10s+1s,40s+500ms"); a bare
// number is seconds, as in spec.Props.Duration. Overlapping or touching
// windows are merged, so the result is sorted and disjoint.
func ParseHiccups(s string) ([]Hiccup, error) {
	var hs []Hiccup
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		a, b, ok := strings.Cut(item, "+")
		if !ok {
			return nil, fmt.Errorf("%q has no '+' between start and duration", item)
		}
		start, err := parseDur(a)
		if err != nil || start < 0 {
			return nil, fmt.Errorf("%q: start %q is not a duration >= 0", item, a)
		}
		d, err := parseDur(b)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%q: duration %q is not a duration > 0", item, b)
		}
		hs = append(hs, Hiccup{Start: start, Duration: d})
	}
	return normalize(hs), nil
}

// normalize returns the hiccups sorted, without empty windows, and with
// overlapping or touching ones merged, in a new slice (nil when none).
func normalize(in []Hiccup) []Hiccup {
	var hs []Hiccup
	for _, h := range in {
		if h.Duration > 0 {
			hs = append(hs, h)
		}
	}
	slices.SortFunc(hs, func(x, y Hiccup) int { return cmp.Compare(x.Start, y.Start) })
	merged := hs[:0]
	for _, h := range hs {
		if n := len(merged); n > 0 && h.Start <= merged[n-1].End() {
			last := &merged[n-1]
			last.Duration = max(last.End(), h.End()) - last.Start
			continue
		}
		merged = append(merged, h)
	}
	if len(merged) == 0 {
		return nil
	}
	return merged
}

func parseDur(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(f * float64(time.Second)), nil
	}
	return time.ParseDuration(s)
}

// queue is the state of the single FIFO server. It is not safe for concurrent
// use; the store guards it with a mutex.
type queue struct {
	m       Model
	service time.Duration
	free    time.Duration // when the server finishes the last admitted operation
	next    int           // first hiccup that may still matter (arrivals are non-decreasing)
}

func newQueue(m Model) queue {
	m.Hiccups = normalize(m.Hiccups)
	return queue{m: m, service: m.ServiceTime()}
}

// admit takes an operation arriving at t (non-decreasing from call to call)
// and returns when the server starts it and when the caller gets the answer
// (server done + Latency).
//
// The server starts at max(t, free), or at the end of a hiccup it falls in;
// a hiccup that begins while an operation is in service suspends it, and the
// operation resumes after the hiccup (the server "serves nothing" then).
func (q *queue) admit(t time.Duration) (start, done time.Duration) {
	s := t
	if q.service > 0 {
		s = max(t, q.free)
	}
	hs := q.m.Hiccups
	i := q.next
	for i < len(hs) && hs[i].End() <= s {
		i++
	}
	q.next = i
	if i < len(hs) && hs[i].Start <= s {
		s = hs[i].End()
		i++
	}
	end := s + q.service
	for ; i < len(hs) && hs[i].Start < end; i++ {
		end += hs[i].Duration
	}
	if q.service > 0 {
		q.free = end
	}
	return s, end + q.m.Latency
}

// ConstantArrivals returns n arrival times at a constant rate (ops/s),
// the first at offset from the origin.
func ConstantArrivals(n int, rate float64, offset time.Duration) []time.Duration {
	a := make([]time.Duration, n)
	for i := range a {
		// Computed from i, not summed, so rounding does not accumulate.
		a[i] = offset + time.Duration(float64(i)*float64(time.Second)/rate)
	}
	return a
}

// PoissonArrivals returns n arrival times of a Poisson process of the given
// rate (ops/s), from offset on; the same seed gives the same schedule.
func PoissonArrivals(n int, rate float64, offset time.Duration, seed uint64) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	a := make([]time.Duration, n)
	t := 0.0 // seconds, summed in float so rounding does not accumulate
	for i := range a {
		a[i] = offset + time.Duration(t*float64(time.Second))
		t += rng.ExpFloat64() / rate
	}
	return a
}

// Prediction is what the model yields for an arrival schedule: the response
// time (done − arrival, what dbrig reports as latency) of every operation.
type Prediction struct {
	Responses []time.Duration // in the order of the (sorted) arrivals
	Mean      time.Duration
	Max       time.Duration
	// End is when the last operation is done, from the origin.
	End    time.Duration
	sorted []time.Duration
}

// Predict runs arrivals (offsets from the origin, in any order; they are
// served in time order) through the model. It is deterministic.
func (m Model) Predict(arrivals []time.Duration) Prediction {
	arr := arrivals
	if !slices.IsSorted(arr) {
		arr = slices.Clone(arr)
		slices.Sort(arr)
	}
	q := newQueue(m)
	p := Prediction{Responses: make([]time.Duration, len(arr))}
	var sum float64
	for i, t := range arr {
		_, done := q.admit(t)
		r := done - t
		p.Responses[i] = r
		sum += float64(r)
		p.Max = max(p.Max, r)
		p.End = max(p.End, done)
	}
	if len(arr) > 0 {
		p.Mean = time.Duration(math.Round(sum / float64(len(arr))))
	}
	p.sorted = slices.Clone(p.Responses)
	slices.Sort(p.sorted)
	return p
}

// Percentile returns the response time at percentile q (0..100) by nearest
// rank, as HDR histograms report it: the smallest value with at least q% of
// the operations at or below it.
func (p Prediction) Percentile(q float64) time.Duration {
	n := len(p.sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(q / 100 * float64(n)))
	return p.sorted[min(max(rank, 1), n)-1]
}

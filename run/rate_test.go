package run

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
)

// The curve's intended starts, computed by hand: 100/s for 1 s (operations
// 0…99 at 10 ms apart), then a ramp from 100/s to 300/s over 1 s, whose
// Λ(τ) = 100τ + 100τ² reaches 100 more operations at τ = 0.618 s (the root
// of τ² + τ − 1), 200 more at τ = 1 s; then nothing.
func TestScheduleCurve(t *testing.T) {
	c := scheduleCurve([]RateStep{{Rate: 100, For: time.Second}, {Rate: 300, For: time.Second, Ramp: true}})
	cases := []struct {
		x    float64
		want time.Duration
		ok   bool
	}{
		{0, 0, true},
		{1, 10 * time.Millisecond, true},
		{99, 990 * time.Millisecond, true},
		{100, time.Second, true},
		{200, time.Second + time.Duration((math.Sqrt(5)-1)/2*1e9), true},
		{299.999, 2*time.Second - 5*time.Microsecond, true},
		{300, 0, false},
	}
	for _, tc := range cases {
		got, ok := c.at(tc.x)
		if ok != tc.ok || (ok && (got-tc.want).Abs() > 10*time.Microsecond) {
			t.Errorf("at(%v) = %v, %v; want %v, %v", tc.x, got, ok, tc.want, tc.ok)
		}
	}
	if c.length() != 2*time.Second {
		t.Errorf("length %v, want 2s", c.length())
	}
	for _, tc := range []struct {
		t    time.Duration
		want float64
	}{{0, 100}, {500 * time.Millisecond, 100}, {1500 * time.Millisecond, 200}, {3 * time.Second, 0}} {
		if got := c.rateAt(tc.t); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("rateAt(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
	// A ramp down, and a ramp from nothing as the first step.
	d := scheduleCurve([]RateStep{{Rate: 200, For: time.Second, Ramp: true}, {Rate: 0, For: time.Second, Ramp: true}})
	if got, _ := d.at(100); (got - time.Second).Abs() > 10*time.Microsecond {
		t.Errorf("ramp up 0→200/s: operation 100 at %v, want 1s", got)
	}
	if got, _ := d.at(150); (got - time.Duration((2-math.Sqrt(0.5))*1e9)).Abs() > 10*time.Microsecond {
		t.Errorf("ramp down 200→0/s: operation 150 at %v, want %v", got, time.Duration((2-math.Sqrt(0.5))*1e9))
	}
}

// A run under a schedule issues what the schedule asks for: 200/s for
// 300 ms, then a ramp to 600/s over 300 ms = 60 + 120 operations, and the
// phase ends with the schedule.
func TestOpenSchedule(t *testing.T) {
	m := Open{Schedule: []RateStep{{Rate: 200, For: 300 * time.Millisecond}, {Rate: 600, For: 300 * time.Millisecond, Ramp: true}}}
	sums, err := Run(context.Background(), &fakeDB{}, &fakeWorkload{}, fast(Config{Clients: 2, Model: m, Duration: 600 * time.Millisecond}), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := measureSummary(t, sums)
	if n := sum.Overall.Count + sum.Dropped; n < 179 || n > 180 {
		t.Errorf("%d operations scheduled, want 180 (60 held + 120 ramping)", n)
	}
	if s := m.Settings(); s.Rate != 600 || s.Model != OpenName {
		t.Errorf("settings %+v, want the open model with its peak rate 600", s)
	}
	for _, bad := range []Open{
		{Rate: 5, Schedule: m.Schedule},
		{Schedule: []RateStep{{Rate: 0, For: time.Second}}},
		{Schedule: []RateStep{{Rate: 10, For: 0}}},
	} {
		if err := bad.Check(1); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// Each interval carries the rate the model asked for over it: under a
// schedule that changes, so achieved throughput can be read against it.
func TestIntervalsCarryTheTargetRate(t *testing.T) {
	c := scheduleCurve([]RateStep{{Rate: 100, For: time.Second}, {Rate: 300, For: time.Second, Ramp: true}})
	for _, tc := range []struct {
		t    time.Duration
		want float64
	}{{0, 0}, {500 * time.Millisecond, 50}, {time.Second, 100}, {1500 * time.Millisecond, 100 + 50 + 25}, {2 * time.Second, 300}, {5 * time.Second, 300}} {
		if got := c.due(tc.t); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("due(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
	m := Open{Schedule: []RateStep{{Rate: 100, For: time.Second}, {Rate: 300, For: time.Second, Ramp: true}}}
	if got := m.targetRate(time.Second, 2*time.Second); math.Abs(got-200) > 1e-9 {
		t.Errorf("mean target over the ramp %v, want 200", got)
	}
	if got := (Closed{Rate: 7}).targetRate(0, time.Second); got != 7 {
		t.Errorf("closed paced target %v, want 7", got)
	}
	obs := &recorder{}
	_, err := Run(context.Background(), &fakeDB{}, &fakeWorkload{}, fast(Config{Clients: 2, Model: Open{Rate: 400}, Duration: 300 * time.Millisecond}), obs)
	if err != nil {
		t.Fatal(err)
	}
	for _, iv := range obs.ivs {
		if iv.Phase == "measure" && iv.End.Sub(iv.Start) > 10*time.Millisecond && math.Abs(iv.TargetRate-400) > 1e-6 {
			t.Errorf("interval target rate %v, want 400", iv.TargetRate)
		}
	}
}

// lagDB wants intended starts and keeps, per call, how late it was called
// after its intended start: with the client free, that is the dispatch lag
// (plus the few µs between the runner's clock read and the call).
type lagDB struct {
	fakeDB
	mu   sync.Mutex
	lags []time.Duration
}

func (db *lagDB) WantsIntendedStart() {}

func (db *lagDB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	if it, ok := driver.IntendedStart(ctx); ok {
		db.mu.Lock()
		db.lags = append(db.lags, time.Since(it))
		db.mu.Unlock()
	}
	return db.fakeDB.Read(ctx, table, key, fields)
}

// The dispatch lag recorded is actual − intended start while a client is
// free (a fast system at a slow rate), and is not the queueing behind a
// busy client (a system that sleeps longer than the arrival gap).
func TestDispatchLag(t *testing.T) {
	free := &lagDB{}
	sums, err := Run(context.Background(), free, &fakeWorkload{}, fast(Config{Clients: 1, Model: Open{Rate: 200}, Operations: 100}), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := measureSummary(t, sums)
	var seen time.Duration
	for _, l := range free.lags {
		seen = max(seen, l)
	}
	// The runner reads its clock just before calling the DB: the recorded
	// maximum is at most what the DB saw (to the histogram's three
	// significant digits: a 38.79 ms lag reads back as up to 38.83 ms). It
	// is less by at most the time between that clock read and the DB's,
	// which the operation's service time includes: a goroutine preempted
	// there (the race detector on a loaded machine) is bounded so. While
	// every service time is below the 5 ms arrival gap the one client is
	// free at each intended start, so no queueing enters the lag.
	hdrTol := time.Microsecond + seen/1000
	got, svcMax := time.Duration(sum.Lag.Max)*time.Microsecond, time.Duration(sum.Overall.Service.Max)*time.Microsecond
	if got > seen+hdrTol || sum.Lag.Count != 100 {
		t.Errorf("recorded lag max %v over %d ops; the DB saw up to %v after the intended starts", got, sum.Lag.Count, seen)
	}
	if svcMax < 5*time.Millisecond && got < seen-svcMax-hdrTol-time.Microsecond {
		t.Errorf("recorded lag max %v; the DB saw up to %v after the intended starts, and no service time (max %v) explains the difference", got, seen, svcMax)
	}

	busy := &fakeDB{service: 30 * time.Millisecond}
	sums, err = Run(context.Background(), busy, &fakeWorkload{}, fast(Config{Clients: 1, Model: Open{Rate: 100}, Operations: 20}), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum = measureSummary(t, sums)
	// 20 operations due 10 ms apart, each taking 30 ms: the last waits
	// ~400 ms for the one client, none of which is the generator's doing.
	if resp := time.Duration(sum.Overall.Response.Max) * time.Microsecond; resp < 300*time.Millisecond {
		t.Errorf("response max %v, want the queueing (≥ 300ms)", resp)
	}
	// The queueing is hundreds of ms and none of it may show as lag. What
	// dbrig took between operations does, summed along the client's busy
	// stretch (each operation could have started that much earlier): µs
	// each on a quiet machine, ms under the race detector on a loaded one.
	if lag := time.Duration(sum.Lag.P99) * time.Microsecond; lag > time.Duration(sum.Overall.Response.Max)*time.Microsecond/4 {
		t.Errorf("dispatch lag p99 %v: queueing behind a busy client counted as the generator's lateness", lag)
	}
}

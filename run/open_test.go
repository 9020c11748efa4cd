package run

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/internal/testenv"
)

// Every arrival the schedule asks for before the phase ends is performed or
// counted as dropped, exactly: no arrival is lost or doubled by the clients
// taking them themselves, whatever the pool size and arrival process.
func TestOpenArrivalCountsExact(t *testing.T) {
	const seed = 42
	cases := []struct {
		name    string
		model   Open
		clients int
		dur     time.Duration
		ops     int64
	}{
		{"constant/1 client", Open{Rate: 1000}, 1, 300 * time.Millisecond, 0},
		{"constant/8 clients", Open{Rate: 3000}, 8, 300 * time.Millisecond, 0},
		{"poisson/4 clients", Open{Rate: 2000, Arrival: Poisson{}}, 4, 300 * time.Millisecond, 0},
		{"ramp/3 clients", Open{Schedule: []RateStep{{Rate: 2000, For: 200 * time.Millisecond, Ramp: true}}}, 3, 200 * time.Millisecond, 0},
		{"count bound/5 clients", Open{Rate: 5000}, 5, 0, 777},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.ops
			if want == 0 {
				// The schedule's own count: arrivals intended before the end.
				m := c.model.withDefaults()
				next, curve := m.Arrival.epochs(seedFor(seed, streamArrivals, 0)), m.curve()
				for {
					off, ok := curve.at(next())
					if !ok || off >= c.dur {
						break
					}
					want++
				}
			}
			obs := &recorder{}
			cfg := fast(Config{Clients: c.clients, Model: c.model, Duration: c.dur, Operations: c.ops, Seed: seed})
			sums, err := Run(context.Background(), &fakeDB{}, &fakeWorkload{}, cfg, obs)
			if err != nil {
				t.Fatal(err)
			}
			sum := measureSummary(t, sums)
			if got := sum.Overall.Count + sum.Dropped; got != want {
				t.Errorf("performed %d + dropped %d = %d, want the schedule's %d", sum.Overall.Count, sum.Dropped, got, want)
			}
			end, _ := obs.event(EventPhaseEnd, "measure")
			if !strings.Contains(end.Detail, fmt.Sprintf("scheduled=%d ", want)) {
				t.Errorf("phase_end %q, want scheduled=%d", end.Detail, want)
			}
		})
	}
}

// sleepLagDB takes a known time per operation and keeps, per call, how late
// it was called after its intended start.
type sleepLagDB struct {
	lagDB
	sleep time.Duration
	inner time.Duration // the shortest time from entering Read to returning
}

func (db *sleepLagDB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	entered := time.Now()
	r, err := db.lagDB.Read(ctx, table, key, fields)
	time.Sleep(db.sleep)
	in := time.Since(entered)
	db.mu.Lock()
	if db.inner == 0 || in < db.inner {
		db.inner = in
	}
	db.mu.Unlock()
	return r, err
}

// On a driver that sleeps a known time and has a client free for every
// arrival, the recorded dispatch lag is what the driver saw (actual −
// intended start), the service time covers the sleep, and the response time
// is their sum: nothing is lost or counted twice, with or without spinning.
func TestDispatchLagIsActualMinusIntended(t *testing.T) {
	for _, spin := range []time.Duration{0, 300 * time.Microsecond} {
		t.Run(fmt.Sprintf("spin=%v", spin), func(t *testing.T) {
			const sleep = 2 * time.Millisecond
			db := &sleepLagDB{sleep: sleep}
			cfg := fast(Config{Clients: 2, Model: Open{Rate: 200}, Operations: 60, SpinWait: spin})
			sums, err := Run(context.Background(), db, &fakeWorkload{}, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			sum := measureSummary(t, sums)
			var seen time.Duration
			for _, l := range db.lags {
				seen = max(seen, l)
			}
			us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
			// HDR keeps 3 significant digits: its max may be up to 0.1 % above.
			// The lag is never more than what the DB saw; it is as much when
			// no operation was so late that it found both clients busy
			// (which a loaded machine can do: that wait is not the lag).
			got := us(sum.Lag.Max)
			if sum.Lag.Count != 60 || got > seen+seen/1000+time.Microsecond {
				t.Errorf("recorded lag max %v over %d ops; the DB saw up to %v after the intended starts", got, sum.Lag.Count, seen)
			}
			// The lower bound. While every service time is below the arrival
			// gap (5 ms), each client is free at its next intended start,
			// so an operation's lag is exactly its start − intended, and
			// the DB entered Read at most (its service time − its time in
			// Read) after that start: a preempted goroutine between the
			// two (the race detector on a loaded machine) is bounded so.
			svcMax := us(sum.Overall.Service.Max)
			slack := svcMax + svcMax/1000 - db.inner + 2*time.Microsecond
			if gap := 5 * time.Millisecond; svcMax < gap && got < seen-slack {
				t.Errorf("recorded lag max %v; the DB saw up to %v after the intended starts, with a client free for each (service max %v, least time in Read %v)", got, seen, svcMax, db.inner)
			}
			if svc := us(sum.Overall.Service.Min); svc < sleep {
				t.Errorf("service time min %v, below the driver's %v sleep", svc, sleep)
			}
			// Maxima: response max ≥ service max, and, while a client was
			// free for each operation (as above; beside a CPU burner a
			// 20 ms service time made the next operation wait 14 ms for
			// one, and that wait is neither lag nor service), ≤ lag max +
			// service max, up to HDR's resolution (3 significant digits:
			// 4 µs buckets from 4,096 µs on) and 1 µs per rounding.
			resp, svc, lag := sum.Overall.Response.Max, sum.Overall.Service.Max, sum.Lag.Max
			if svcMax < 5*time.Millisecond && resp > lag+svc+resp/1000+2 || resp < svc {
				t.Errorf("response max %d µs, service max %d µs, lag max %d µs: want service ≤ response ≤ lag + service", resp, svc, lag)
			}
		})
	}
}

// A generator starved of CPU (goroutines spinning on every core beside it)
// falls behind the schedule although the system answers at once: that
// lateness is dbrig's, so the dispatch lag must carry it, not only the
// first operation after each stall. (Queueing behind a slow system is the
// other side: TestDispatchLag.)
func TestStarvedGeneratorLagIsItsOwn(t *testing.T) {
	stop := testenv.StarveCPU()
	cfg := fast(Config{Clients: 4, Model: Open{Rate: 2000}, Operations: 1000})
	sums, err := Run(context.Background(), &fakeDB{}, &fakeWorkload{}, cfg, nil)
	stop()
	if err != nil {
		t.Fatal(err)
	}
	sum := measureSummary(t, sums)
	resp, lag := sum.Overall.Response.P99, sum.Lag.P99
	if resp < 2000 {
		t.Skipf("response p99 %d µs: the spinning goroutines did not starve the generator here", resp)
	}
	if lag < resp/2 {
		t.Errorf("starved generator: lag p99 %d µs, response p99 %d µs, service p99 %d µs; want the lateness counted as dbrig's", lag, resp, sum.Overall.Service.P99)
	}
}

// Interrupted, the phase still accounts for every arrival it released:
// performed plus dropped is what phase_end calls scheduled.
func TestOpenCancelAccountsForEveryArrival(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	obs := &recorder{}
	cfg := fast(Config{Clients: 4, Model: Open{Rate: 1000}, Duration: 5 * time.Second, SpinWait: 100 * time.Microsecond})
	sums, err := Run(ctx, &fakeDB{service: time.Millisecond}, &fakeWorkload{}, cfg, obs)
	if err == nil {
		t.Fatal("no error from an interrupted run")
	}
	sum := measureSummary(t, sums)
	end, _ := obs.event(EventPhaseEnd, "measure")
	var scheduled, full, late int64
	if _, err := fmt.Sscanf(end.Detail[strings.Index(end.Detail, "scheduled="):], "scheduled=%d dropped_backlog_full=%d dropped_not_started=%d", &scheduled, &full, &late); err != nil {
		t.Fatalf("phase_end %q: %v", end.Detail, err)
	}
	if sum.Overall.Count+sum.Dropped != scheduled || full+late != sum.Dropped || scheduled < 100 {
		t.Errorf("performed %d + dropped %d (full %d, late %d) against scheduled %d", sum.Overall.Count, sum.Dropped, full, late, scheduled)
	}
}

package run

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
)

// nopDB answers at once and shares nothing between clients.
type nopDB struct{ driver.DB }

func (nopDB) Read(context.Context, string, string, []string) (driver.Record, error) { return nil, nil }

// sleepDB takes about d per operation without using CPU, like a remote
// server. Go timers round short sleeps up: 100 µs takes ~1.1 ms on Linux,
// so this DB needs ~10× the concurrency of a real 100 µs one (nanosleep would
// be exact but blocks a thread per in-flight operation).
type sleepDB struct {
	driver.DB
	d time.Duration
}

func (db sleepDB) Read(context.Context, string, string, []string) (driver.Record, error) {
	time.Sleep(db.d)
	return nil, nil
}

// BenchmarkClosedCeiling is the harness's own ceiling: closed model, no-op
// DB, trivial workload. ops/s should not drop as clients are added.
func BenchmarkClosedCeiling(b *testing.B) {
	for _, clients := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			b.ReportAllocs()
			start := time.Now()
			sums, err := Run(context.Background(), nopDB{}, &fakeWorkload{}, Config{Clients: clients, Operations: int64(b.N)}, nil)
			if err != nil {
				b.Fatal(err)
			}
			elapsed := time.Since(start)
			if c := sums[0].Overall.Count; c != int64(b.N) {
				b.Fatalf("count %d, want %d", c, b.N)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
		})
	}
}

// BenchmarkOpenRate runs the open model for 2 s per case at 1k, 10k and
// 100k ops/s and reports the achieved rate, its error, and p99 response and
// service times. Against the no-op DB, response time is all harness
// (scheduler wake-up and hand-off to a worker); spin=2ms busy-waits the last
// 2 ms before each arrival instead of sleeping (shown at 1k ops/s, where
// arrivals are furthest apart).
func BenchmarkOpenRate(b *testing.B) {
	type dbCase struct {
		name string
		db   driver.DB
	}
	for _, rate := range []float64{1000, 10_000, 100_000} {
		for _, dc := range []dbCase{{"nop", nopDB{}}, {"sleep100us", sleepDB{d: 100 * time.Microsecond}}} {
			for _, spin := range []time.Duration{0, 2 * time.Millisecond} {
				if spin > 0 && (dc.name != "nop" || rate != 1000) {
					continue
				}
				name := fmt.Sprintf("rate=%g/db=%s/spin=%v", rate, dc.name, spin)
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						openRateCase(b, dc.db, rate, spin)
					}
				})
			}
		}
	}
}

func openRateCase(b *testing.B, db driver.DB, rate float64, spin time.Duration) {
	const dur = 2 * time.Second
	cfg := Config{Model: Open{Rate: rate}, Clients: 256, Duration: dur, SpinWait: spin}
	sums, err := Run(context.Background(), db, &fakeWorkload{}, cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	s := sums[0]
	want := rate * dur.Seconds()
	b.ReportMetric(float64(s.Overall.Count)/s.End.Sub(s.Start).Seconds(), "ops/s")
	b.ReportMetric(100*(float64(s.Overall.Count)-want)/want, "count_err_%")
	b.ReportMetric(float64(s.Overall.Response.P99), "p99_resp_µs")
	b.ReportMetric(float64(s.Overall.Service.P99), "p99_svc_µs")
	b.ReportMetric(float64(s.Overall.Response.P50), "p50_resp_µs")
	b.ReportMetric(float64(s.Dropped), "dropped")
}

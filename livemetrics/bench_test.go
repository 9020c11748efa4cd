package livemetrics

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/workload"
)

// nopDB answers at once: the harness's own ceiling.
type nopDB struct{ driver.DB }

func (nopDB) Read(context.Context, string, string, []string) (driver.Record, error) { return nil, nil }

// readWorkload reads one key over and over.
type readWorkload struct{}

func (readWorkload) Ops() []string                        { return []string{"READ"} }
func (readWorkload) LoadCount() int64                     { return 0 }
func (readWorkload) NewClient(int, int64) workload.Client { return readClient{} }

type readClient struct{}

func (readClient) Load(context.Context, driver.DB, int) (int, error) { return 0, nil }
func (readClient) Do(ctx context.Context, db driver.DB) (int, error) {
	_, err := db.Read(ctx, "t", "k", nil)
	return 0, err
}

// outlets is live metrics as a user runs them: /metrics scraped every
// second (as Prometheus would) and remote write every second to a
// receiver that decodes each push.
type outlets struct {
	m       *Metrics
	srv     *httptest.Server
	sink    *httptest.Server
	rw      *RemoteWriter
	stop    chan struct{}
	scraped chan int
}

func startOutlets() *outlets {
	o := &outlets{m: New(), stop: make(chan struct{}), scraped: make(chan int, 1)}
	o.m.BeginRun(Run{RunID: "1", Experiment: "bench"})
	o.srv = httptest.NewServer(promhttp.HandlerFor(o.m.Registry(), promhttp.HandlerOpts{EnableOpenMetrics: true}))
	o.sink = httptest.NewServer(&sink{})
	o.rw = NewRemoteWriter(o.sink.URL, time.Second, o.m.Registry(), o.m.Registry())
	o.rw.Start()
	go func() {
		n := 0
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				req, _ := http.NewRequest(http.MethodGet, o.srv.URL, nil)
				// Prometheus with native histograms asks for protobuf.
				req.Header.Set("Accept", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited")
				if resp, err := http.DefaultClient.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					n++
				}
			case <-o.stop:
				o.scraped <- n
				return
			}
		}
	}()
	return o
}

func (o *outlets) close() (scrapes int, st RemoteStats) {
	close(o.stop)
	scrapes = <-o.scraped
	st = o.rw.Close(5 * time.Second)
	o.srv.Close()
	o.sink.Close()
	return scrapes, st
}

// benchPairs is how many off/on pairs each case runs (env
// DBRIG_LIVE_PAIRS; default 5).
func benchPairs() int {
	if n, err := strconv.Atoi(os.Getenv("DBRIG_LIVE_PAIRS")); err == nil && n > 0 {
		return n
	}
	return 5
}

// costCase runs cfg back to back without and with live metrics, pairs
// times, alternating which goes first, and returns each side's figures by
// name.
func costCase(b *testing.B, cfg run.Config, figures func(s measure.Summary, cpu time.Duration) map[string]float64) (off, on map[string][]float64) {
	off, on = map[string][]float64{}, map[string][]float64{}
	for i := range benchPairs() {
		for j := range 2 {
			live := (i+j)%2 == 1
			var obs run.Observer
			var o *outlets
			if live {
				o = startOutlets()
				obs = o.m
			}
			cpu0 := cpuTime()
			sums, err := run.Run(context.Background(), nopDB{}, readWorkload{}, cfg, obs)
			if err != nil {
				b.Fatal(err)
			}
			cpu := cpuTime() - cpu0 // the scraper's and the receiver's included
			f := figures(sums[len(sums)-1], cpu)
			side := off
			if live {
				scrapes, st := o.close()
				if scrapes == 0 || st.Pushes == 0 {
					b.Fatalf("live side: %d scrapes, remote write %+v", scrapes, st)
				}
				if st.Dropped > 0 { // a starved machine: said, not fatal
					b.Logf("live side: remote write dropped %d of %d pushes (%v)", st.Dropped, st.Dropped+st.Pushes, st.LastErr)
				}
				side = on
			}
			for k, v := range f {
				side[k] = append(side[k], v)
			}
		}
	}
	return off, on
}

// cpuTime is the CPU this process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkLiveMetricsCost shows what live metrics cost the harness:
// exposition scraped every second and remote write every second, side by
// side with neither, back to back (median of DBRIG_LIVE_PAIRS pairs of
// DBRIG_LIVE_RUN each, default 5 and 5 s). ceiling: the closed model's ops/s against a no-op DB (the
// harness ceiling); lag: the open model's dispatch lag p99 and mean at a
// fixed rate. Run with -benchtime=1x (see docs/measurements/live-metrics.md).
func BenchmarkLiveMetricsCost(b *testing.B) {
	dur := 5 * time.Second
	if d, err := time.ParseDuration(os.Getenv("DBRIG_LIVE_RUN")); err == nil && d > 0 {
		dur = d
	}
	report := func(b *testing.B, off, on map[string][]float64) {
		for _, k := range slices.Sorted(maps.Keys(off)) {
			b.ReportMetric(median(off[k]), k+"_off")
			b.ReportMetric(median(on[k]), k+"_on")
			b.ReportMetric(median(on[k])/median(off[k]), k+"_on/off")
			b.Logf("%s: off %s | on %s", k, fmtAll(off[k]), fmtAll(on[k]))
		}
	}
	b.Run("ceiling", func(b *testing.B) {
		for b.Loop() {
			off, on := costCase(b, run.Config{Clients: 2, Duration: dur}, func(s measure.Summary, cpu time.Duration) map[string]float64 {
				return map[string]float64{"ops/s": float64(s.Overall.Count) / s.End.Sub(s.Start).Seconds(),
					"cpu_ns/op": float64(cpu.Nanoseconds()) / float64(s.Overall.Count),
					"cpu_cores": cpu.Seconds() / s.End.Sub(s.Start).Seconds()}
			})
			report(b, off, on)
		}
	})
	for _, rate := range []float64{10_000, 50_000} {
		b.Run(fmt.Sprintf("lag/rate=%g", rate), func(b *testing.B) {
			for b.Loop() {
				cfg := run.Config{Model: run.Open{Rate: rate}, Clients: 64, Duration: dur}
				off, on := costCase(b, cfg, func(s measure.Summary, cpu time.Duration) map[string]float64 {
					return map[string]float64{"lag_p99_µs": float64(s.Lag.P99), "lag_mean_µs": s.Lag.Mean,
						"ops/s":     float64(s.Overall.Count) / s.End.Sub(s.Start).Seconds(),
						"cpu_cores": cpu.Seconds() / s.End.Sub(s.Start).Seconds()}
				})
				report(b, off, on)
			}
		})
	}
}

func fmtAll(xs []float64) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += " "
		}
		s += strconv.FormatFloat(x, 'f', 1, 64)
	}
	return s
}

// busyInterval is a second of a busy run: six operation types, each with
// thousands of distinct latencies (1 µs to 100 ms), errors of two classes.
func busyInterval(start time.Time) measure.Interval {
	iv := measure.Interval{Phase: measure.PhaseMeasure, Start: start, End: start.Add(time.Second), Lag: measure.NewHistogram(), Backlog: 3}
	x := uint64(12345)
	next := func() int64 { // xorshift: log-uniform 1 µs .. 100 ms
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int64(math.Exp(float64(x%1_000_000) / 1_000_000 * math.Log(100_000)))
	}
	for _, op := range []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE"} {
		h := measure.NewHistogram()
		for range 20_000 {
			_ = h.RecordValue(next())
		}
		for range 2000 {
			_ = iv.Lag.RecordValue(next() / 100)
		}
		iv.Ops = append(iv.Ops, measure.OpInterval{Op: op, Count: 20_000, Errors: 10,
			Classes: map[string]int64{"timeout": 7, "unavailable": 3}, Response: h, Service: h})
	}
	return iv
}

// BenchmarkFeedInterval is the per-second work on the run's interval
// goroutine: one busy interval into the metrics.
func BenchmarkFeedInterval(b *testing.B) {
	m := New()
	m.BeginRun(Run{RunID: "1"})
	iv := busyInterval(time.Now())
	cpu := cpuTime()
	for b.Loop() {
		m.Interval(iv)
	}
	reportCPU(b, cpu)
}

// reportCPU reports the process's CPU time per iteration since cpu0: on a
// shared machine, what an iteration costs, where ns/op is also what the
// other processes took.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkScrape is one scrape (protobuf, as Prometheus with native
// histograms asks) of a run with six operation types in three phases.
func BenchmarkScrape(b *testing.B) {
	m := New()
	m.BeginRun(Run{RunID: "1", Matrix: map[string]string{"clients": "8"}})
	for _, ph := range measure.Phases() {
		iv := busyInterval(time.Now())
		iv.Phase = ph
		m.Interval(iv)
	}
	h := promhttp.HandlerFor(m.Registry(), promhttp.HandlerOpts{EnableOpenMetrics: true})
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited")
	cpu := cpuTime()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	reportCPU(b, cpu)
}

// BenchmarkRemotePush is one remote-write push's gathering, conversion,
// protobuf and snappy (the network is the sender goroutine's).
func BenchmarkRemotePush(b *testing.B) {
	m := New()
	m.BeginRun(Run{RunID: "1"})
	for _, ph := range measure.Phases() {
		iv := busyInterval(time.Now())
		iv.Phase = ph
		m.Interval(iv)
	}
	w := NewRemoteWriter("http://127.0.0.1:1/", time.Hour, m.Registry(), nil)
	cpu := cpuTime()
	for b.Loop() {
		w.Enqueue()
		w.mu.Lock()
		w.queue = w.queue[:0]
		w.mu.Unlock()
	}
	reportCPU(b, cpu)
}

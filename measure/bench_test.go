package measure

import (
	"errors"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// BenchmarkRecord is the cost of one recorded operation on the hot path.
func BenchmarkRecord(b *testing.B) {
	r := NewRecorder([]string{"READ", "UPDATE"})
	c := r.Shard()
	now := time.Now()
	// Precomputed times, so the benchmark measures Record, not time.Add.
	var started, ended [1024]time.Time
	for i := range started {
		started[i] = now.Add(us(int64(i)))
		ended[i] = now.Add(us(int64(i * 3)))
	}
	c.Record(0, now, now, now, nil) // allocate the op's histograms
	c.Record(1, now, now, now, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c.Record(Op(i&1), now, started[i&1023], ended[i&1023], nil)
	}
}

// BenchmarkRecordParallel has one Client per goroutine and a Cut every
// 10 ms, as in a run (only 100 times more often).
func BenchmarkRecordParallel(b *testing.B) {
	r := NewRecorder([]string{"READ", "UPDATE"})
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				r.Cut(PhaseMeasure, now)
			}
		}
	}()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		c := r.Shard()
		now := time.Now()
		var ended [1024]time.Time
		for i := range ended {
			ended[i] = now.Add(us(int64(i * 3)))
		}
		i := 0
		for pb.Next() {
			c.Record(Op(i&1), now, now, ended[i&1023], nil)
			i++
		}
	})
}

// BenchmarkRecordError is the error path (classification and message).
func BenchmarkRecordError(b *testing.B) {
	r := NewRecorder([]string{"READ"})
	c := r.Shard()
	now := time.Now()
	err := errors.New("connection refused")
	b.ReportAllocs()
	for b.Loop() {
		c.Record(0, now, now, now, err)
	}
}

// The per-interval cut of a run with 8 shards (16 clients on 2 CPUs) and
// one operation type, each shard with a few hundred values: the work the
// runner's interval goroutine does every second, beside the clients.
//
//	go test -run '^$' -bench Cut ./measure/
func BenchmarkCut(b *testing.B) {
	r := NewRecorder([]string{"READ"})
	shards := make([]*Shard, 8)
	for i := range shards {
		shards[i] = r.Shard()
	}
	t0 := time.Now()
	for b.Loop() {
		for _, s := range shards {
			for v := range 300 {
				d := time.Duration(v) * time.Microsecond
				s.RecordReady(0, t0, t0, t0.Add(d/10), t0.Add(d), nil)
			}
		}
		r.Cut(PhaseMeasure, time.Now())
	}
}

// StatsOf on the histograms a summary computes figures for: a phase's
// latencies (skewed, ~100k values), one with a tail reaching seconds, and a
// short interval's few values reaching 2 s. BenchmarkStatsOfOracle is the
// implementation before the one-pass walk (four walks of the library's
// iterator), kept as the test oracle, for the comparison in
// docs/measurements/statsof.md:
//
//	go test -run '^$' -bench StatsOf -benchmem -cpu 1,2 ./measure/
func BenchmarkStatsOf(b *testing.B) { benchStats(b, StatsOf) }

func BenchmarkStatsOfOracle(b *testing.B) { benchStats(b, oracleStatsOf) }

func benchStats(b *testing.B, stats func(*hdr.Histogram) Stats) {
	data := percentileDatasets()
	for _, name := range []string{"skewed", "bimodal tail", "n=7"} {
		h := NewHistogram()
		for _, v := range data[name] {
			if err := h.RecordValue(v); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				stats(h)
			}
		})
	}
}

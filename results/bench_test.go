package results

import (
	"context"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
)

// realisticInterval is one second of a 5-op workload at ~10k ops/s with
// latencies spread over three orders of magnitude.
func realisticInterval(b *testing.B, start time.Time) measure.Interval {
	iv := measure.Interval{Phase: measure.PhaseMeasure, Start: start, End: start.Add(time.Second)}
	for _, op := range []string{"READ", "UPDATE", "INSERT", "SCAN", "READMODIFYWRITE"} {
		resp, svc := measure.NewHistogram(), measure.NewHistogram()
		for i := int64(0); i < 2000; i++ {
			v := 50 + (i*i*7919)%20000
			resp.RecordValue(v)
			svc.RecordValue(v / 2)
		}
		iv.Ops = append(iv.Ops, measure.OpInterval{Op: op, Count: 2000, Response: resp, Service: svc})
	}
	return iv
}

// BenchmarkAddInterval is the store's cost per second of a run (one call).
func BenchmarkAddInterval(b *testing.B) {
	ctx := context.Background()
	s := newSQLite(b)
	id, err := s.CreateRun(ctx, RunInfo{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	iv := realisticInterval(b, start)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		iv.Start = start.Add(time.Duration(i) * time.Second)
		iv.End = iv.Start.Add(time.Second)
		if err := s.AddInterval(ctx, id, iv); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunDetail reads a whole run (10 phases' worth of op stats decoded).
func BenchmarkRunDetail(b *testing.B) {
	ctx := context.Background()
	s := newSQLite(b)
	id, err := s.CreateRun(ctx, RunInfo{Name: "bench", Props: map[string]string{"recordcount": "1000"}})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if err := s.AddPhase(ctx, id, sampleSummary(b, measure.PhaseMeasure, time.Now(), 1)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Run(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

package report_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/web/webtest"
)

// benchRun is a 10-minute run (600 intervals of READ and UPDATE) with a fault.
func benchRun(b *testing.B) (*analysis.Set, func() error) {
	b.Helper()
	s, _ := newStore(b)
	spec := webtest.Default(t0)
	spec.Measure, spec.FaultFrom, spec.FaultTo = 600, 100, 130
	r := addRun(b, s, spec)
	rep, err := report.Build(context.Background(), s, []int64{r.ID})
	if err != nil {
		b.Fatal(err)
	}
	return rep, func() error { return report.WriteHTML(context.Background(), io.Discard, s, []int64{r.ID}) }
}

// BenchmarkWriteHTML is `dbrig report` of a 10-minute run: read, build, render.
func BenchmarkWriteHTML(b *testing.B) {
	_, write := benchRun(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := write(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderHTML is the rendering alone (charts built).
func BenchmarkRenderHTML(b *testing.B) {
	rep, _ := benchRun(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := report.RenderHTML(io.Discard, rep); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderPNGs draws the 10 charts of a 10-minute run as PNG files.
func BenchmarkRenderPNGs(b *testing.B) {
	rep, _ := benchRun(b)
	dir := b.TempDir()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := report.RenderPNGs(context.Background(), dir, rep); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N)/float64(len(rep.Charts)), "ms/chart")
}

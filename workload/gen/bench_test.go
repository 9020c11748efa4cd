package gen

import (
	"sync/atomic"
	"testing"
)

// benchSink keeps results alive so the compiler cannot drop the calls.
var benchSink int64

func BenchmarkNext(b *testing.B) {
	basis := NewAckCounter(0)
	for i := 0; i < 1_000_000; i++ {
		basis.Acknowledge(basis.Next())
	}
	mk := map[string]func() Int64{
		"constant":  func() Int64 { return Constant(100) },
		"uniform":   func() Int64 { g, _ := NewUniform(newRand(1), 0, 1e8-1); return g },
		"zipfian":   func() Int64 { g, _ := NewZipfian(newRand(1), 1e8, 0.99); return g },
		"scrambled": func() Int64 { g, _ := NewScrambledZipfian(newRand(1), 0, 1e8-1, 0.99); return g },
		"latest":    func() Int64 { g, _ := NewSkewedLatest(newRand(1), basis, 0.99); return g },
		"hotspot":   func() Int64 { g, _ := NewHotspot(newRand(1), 0, 1e8-1, 0.2, 0.8); return g },
		"exponential": func() Int64 {
			g, _ := NewExponential(newRand(1), 95, 1e8/7)
			return g
		},
		"sequential": func() Int64 { g, _ := NewSequential(0, 1e8-1); return g },
		"counter":    func() Int64 { return NewCounter(0) },
	}
	for _, name := range []string{"constant", "uniform", "zipfian", "scrambled", "latest", "hotspot", "exponential", "sequential", "counter"} {
		g := mk[name]()
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var s int64
			for b.Loop() {
				s += g.Next()
			}
			benchSink = s
		})
	}
	b.Run("discrete", func(b *testing.B) {
		d, _ := NewDiscrete(newRand(1), []float64{0.5, 0.3, 0.1, 0.05, 0.05, 0})
		b.ReportAllocs()
		var s int
		for b.Loop() {
			s += d.Next()
		}
		benchSink = int64(s)
	})
}

// BenchmarkNewZipfian100M shows that set-up at 100 M items is constant time
// (YCSB sums 100 M terms here, which takes seconds).
func BenchmarkNewZipfian100M(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		z, err := NewZipfian(newRand(1), 100_000_000, 0.99)
		if err != nil {
			b.Fatal(err)
		}
		benchSink += z.items
	}
}

// BenchmarkAckCounter is the run-phase insert path: take a key, acknowledge it,
// from all goroutines at once.
func BenchmarkAckCounter(b *testing.B) {
	c := NewAckCounter(0)
	var fails atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if c.Acknowledge(c.Next()) != nil {
				fails.Add(1)
			}
		}
	})
	if fails.Load() > 0 {
		b.Fatalf("%d acknowledgements failed", fails.Load())
	}
}

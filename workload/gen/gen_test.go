package gen

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math"
	"sync"
	"sync/atomic"
	"testing"
)

const samples = 200_000

func TestChiSquaredRejectsAWrongDistribution(t *testing.T) {
	// The statistical tests below are only worth something if the check can
	// fail: uniform draws must not pass as zipfian, nor zipfian as uniform.
	r := newRand(1)
	u, _ := NewUniform(r, 0, 99)
	c, err := counts(100, samples, u.Next, 0)
	if err != nil {
		t.Fatal(err)
	}
	if chiSquared(c, zipfPMF(100, 0.99)) == nil {
		t.Error("uniform draws accepted as zipfian")
	}
	z, _ := NewZipfian(r, 100, 0.99)
	c, _ = counts(100, samples, z.Next, 0)
	if chiSquared(c, uniformPMF(100)) == nil {
		t.Error("zipfian draws accepted as uniform")
	}
}

func uniformPMF(n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	return p
}

func TestUniform(t *testing.T) {
	for _, tc := range []struct{ min, max int64 }{{0, 9}, {5, 104}, {-50, 49}, {7, 7}} {
		u, err := NewUniform(newRand(2), tc.min, tc.max)
		if err != nil {
			t.Fatal(err)
		}
		n := int(tc.max - tc.min + 1)
		c, err := counts(n, samples, u.Next, tc.min)
		if err != nil {
			t.Fatalf("[%d, %d]: %v", tc.min, tc.max, err)
		}
		if n > 1 {
			if err := chiSquared(c, uniformPMF(n)); err != nil {
				t.Errorf("[%d, %d]: %v", tc.min, tc.max, err)
			}
		}
	}
}

func TestZeta(t *testing.T) {
	for _, tc := range []struct {
		n     int64
		theta float64
	}{{1, 0.99}, {2, 0.99}, {128, 0.99}, {129, 0.99}, {2049, 0.99}, {100_000, 0.99}, {1_000_000, 0.99}, {1_000_000, 0.5}, {300_000, 0.1}, {500_000, 0.999}} {
		got, want := Zeta(tc.n, tc.theta), zetaSum(0, tc.n, tc.theta, 0)
		if rel := math.Abs(got-want) / want; rel > 1e-12 {
			t.Errorf("Zeta(%d, %v) = %.15g, plain sum %.15g (rel. diff %.2g)", tc.n, tc.theta, got, want, rel)
		}
	}
	// YCSB's precomputed ScrambledZipfianGenerator.ZETAN is the plain sum over
	// 1e10 items (which Zeta reproduces without summing 1e10 terms).
	if got := Zeta(10_000_000_000, 0.99); math.Abs(got-scrambledZetan)/scrambledZetan > 1e-11 {
		t.Errorf("Zeta(1e10, 0.99) = %.15g, YCSB's ZETAN is %.15g", got, scrambledZetan)
	}
}

func TestZipfian(t *testing.T) {
	for _, tc := range []struct {
		min, items int64
		theta      float64
	}{{0, 10, 0.99}, {0, 100, 0.99}, {1000, 100, 0.5}, {0, 300, 0.2}, {0, 3000, 0.99}} {
		z, err := NewZipfianRange(newRand(3), tc.min, tc.min+tc.items-1, tc.theta)
		if err != nil {
			t.Fatal(err)
		}
		c, err := counts(int(tc.items), samples, z.Next, tc.min)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		// Gray's method is exact for the first two items and approximates the
		// rest; its own pmf is computable exactly, so that is what is tested…
		gray := grayPMF(tc.items, tc.items, tc.theta, zetaSum(0, tc.items, tc.theta, 0))
		if err := chiSquared(c, gray); err != nil {
			t.Errorf("%+v: against the algorithm's pmf: %v", tc, err)
		}
		// …and that pmf is close to the true zipfian (total variation < 2 %).
		exact := zipfPMF(tc.items, tc.theta)
		var tv float64
		for k := range exact {
			tv += math.Abs(exact[k]-gray[k]) / 2
		}
		if tv > 0.02 {
			t.Errorf("%+v: total variation from the exact zipfian pmf is %.4f", tc, tv)
		}
		for k := 0; k < 2; k++ {
			if math.Abs(gray[k]-exact[k]) > 1e-12 {
				t.Errorf("%+v: P(%d) = %v, exact zipfian %v", tc, k, gray[k], exact[k])
			}
		}
	}
}

func TestZipfianNextNGrows(t *testing.T) {
	z, err := NewZipfian(newRand(4), 1000, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{1001, 1500, 5000, 2_000_000, 2_000_010} {
		for i := 0; i < 1000; i++ {
			if v := z.NextN(n); v < 0 || v >= n {
				t.Fatalf("NextN(%d) = %d", n, v)
			}
		}
		if want := zetaSum(0, n, 0.99, 0); math.Abs(z.zetan-want)/want > 1e-12 {
			t.Errorf("after NextN(%d): zeta %.15g, want %.15g", n, z.zetan, want)
		}
	}
	// And the grown generator has the right distribution.
	z, _ = NewZipfian(newRand(5), 50, 0.99)
	c := make([]int64, 80)
	for i := 0; i < samples; i++ {
		c[z.NextN(80)]++
	}
	if err := chiSquared(c, grayPMF(80, 80, 0.99, zetaSum(0, 80, 0.99, 0))); err != nil {
		t.Error(err)
	}
}

// YCSB's default zipfian constant is 0.99, and its scrambled zipfian's
// ZETAN is ζ(1e10, 0.99): changing either changes which keys are hot.
func TestDefaultConstantIsYCSBs(t *testing.T) {
	if DefaultZipfianConstant != 0.99 {
		t.Errorf("DefaultZipfianConstant = %v, YCSB's is 0.99", DefaultZipfianConstant)
	}
	if z := Zeta(10_000_000_000, DefaultZipfianConstant); math.Abs(z-26.46902820178302) > 1e-9 {
		t.Errorf("ζ(1e10, default constant) = %.15g, YCSB's ZETAN is 26.46902820178302", z)
	}
	if scrambledZetan != 26.46902820178302 {
		t.Errorf("scrambledZetan = %v, YCSB's ZETAN is 26.46902820178302", scrambledZetan)
	}
}

func TestFNVHash64(t *testing.T) {
	// YCSB's fnvhash64 is FNV-1a over the 8 little-endian bytes, then abs.
	r := newRand(6)
	for i := 0; i < 1000; i++ {
		v := int64(r.Uint64())
		if i < 3 {
			v = int64(i)
		}
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
		want := int64(h.Sum64())
		if want < 0 {
			want = -want
		}
		if got := FNVHash64(v); got != want {
			t.Fatalf("FNVHash64(%d) = %d, want %d", v, got, want)
		}
	}
}

func TestScrambledZipfian(t *testing.T) {
	const min, n = 100, 1000
	s, err := NewScrambledZipfian(newRand(7), min, min+n-1, DefaultZipfianConstant)
	if err != nil {
		t.Fatal(err)
	}
	c, err := counts(n, samples, s.Next, min)
	if err != nil {
		t.Fatal(err)
	}
	// The whole pmf, from the formulas: Gray's pmf over YCSB's item space
	// (1e16+1 items, YCSB's ZETAN) for the first million items, each moved
	// to FNV(item) % n; the remaining mass is spread over 1e16 items by the
	// hash, i.e. evenly over the keys.
	const head = 1_000_000
	gray := grayPMF(scrambledItemCount+1, head, 0.99, 26.46902820178302)
	pmf := make([]float64, n)
	rest := 1.0
	for i, p := range gray {
		pmf[uint64(FNVHash64(int64(i)))%n] += p
		rest -= p
	}
	for i := range pmf {
		pmf[i] += rest / n
	}
	if err := chiSquared(c, pmf); err != nil {
		t.Errorf("scrambled zipfian against its pmf: %v", err)
	}
	hot := FNVHash64(0) % n
	// Popular items are scattered, not clustered at min like the plain zipfian.
	if c[0] > c[hot]/4 && hot != 0 {
		t.Errorf("min drawn %d times: popularity not scrambled", c[0])
	}
	// Other constants work too (zeta over 1e16 items, instantly).
	if _, err := NewScrambledZipfian(newRand(7), 0, 9, 0.5); err != nil {
		t.Error(err)
	}
}

func TestHotspot(t *testing.T) {
	for _, tc := range []struct{ hotSet, hotOpn float64 }{{0.2, 0.8}, {0.5, 0.5}, {0.1, 0.99}, {0.3, 0}, {1, 1}} {
		const min, n = 10, 100
		h, err := NewHotspot(newRand(8), min, min+n-1, tc.hotSet, tc.hotOpn)
		if err != nil {
			t.Fatal(err)
		}
		c, err := counts(n, samples, h.Next, min)
		if err != nil {
			t.Fatal(err)
		}
		hot := int(n * tc.hotSet)
		pmf := make([]float64, n)
		for i := range pmf {
			if i < hot {
				pmf[i] = tc.hotOpn / float64(hot)
			} else {
				pmf[i] = (1 - tc.hotOpn) / float64(n-hot)
			}
		}
		if err := chiSquared(c, pmf); err != nil {
			t.Errorf("%+v: %v", tc, err)
		}
	}
}

func TestExponential(t *testing.T) {
	// 95 % of draws below rng: gamma = −ln(0.05)/rng.
	const rng = 120.0
	e, err := NewExponential(newRand(9), 95, rng)
	if err != nil {
		t.Fatal(err)
	}
	const bins = 400
	gamma := -math.Log(0.05) / rng
	pmf := make([]float64, bins+1)
	for k := 0; k < bins; k++ {
		pmf[k] = math.Exp(-gamma*float64(k)) - math.Exp(-gamma*float64(k+1))
	}
	pmf[bins] = math.Exp(-gamma * bins)
	c := make([]int64, bins+1)
	below := 0
	for i := 0; i < samples; i++ {
		x := e.Float()
		if x < rng {
			below++
		}
		c[min(int64(x), bins)]++
	}
	if err := chiSquared(c, pmf); err != nil {
		t.Error(err)
	}
	if p := float64(below) / samples; math.Abs(p-0.95) > 0.005 {
		t.Errorf("%.4f of draws below the range, want 0.95", p)
	}
}

func TestDiscrete(t *testing.T) {
	weights := []float64{0.5, 0, 0.3, 0.15, 0.05}
	d, err := NewDiscrete(newRand(10), weights)
	if err != nil {
		t.Fatal(err)
	}
	c := make([]int64, len(weights))
	for i := 0; i < samples; i++ {
		c[d.Next()]++
	}
	if c[1] != 0 {
		t.Errorf("weight 0 chosen %d times", c[1])
	}
	if err := chiSquared(c, weights); err != nil {
		t.Error(err)
	}
}

func TestConstructorErrors(t *testing.T) {
	r := newRand(11)
	for name, f := range map[string]func() error{
		"uniform max<min":      func() error { _, err := NewUniform(r, 5, 4); return err },
		"zipfian theta 1":      func() error { _, err := NewZipfian(r, 10, 1); return err },
		"zipfian theta 0":      func() error { _, err := NewZipfian(r, 10, 0); return err },
		"zipfian no items":     func() error { _, err := NewZipfian(r, 0, 0.99); return err },
		"scrambled max<min":    func() error { _, err := NewScrambledZipfian(r, 1, 0, 0.99); return err },
		"hotspot fraction":     func() error { _, err := NewHotspot(r, 0, 9, 1.5, 0.5); return err },
		"hotspot empty hot":    func() error { _, err := NewHotspot(r, 0, 9, 0.05, 0.5); return err },
		"hotspot empty cold":   func() error { _, err := NewHotspot(r, 0, 9, 1, 0.5); return err },
		"exponential pct 100":  func() error { _, err := NewExponential(r, 100, 10); return err },
		"exponential range 0":  func() error { _, err := NewExponential(r, 95, 0); return err },
		"discrete all zero":    func() error { _, err := NewDiscrete(r, []float64{0, 0}); return err },
		"discrete negative":    func() error { _, err := NewDiscrete(r, []float64{1, -1}); return err },
		"discrete NaN":         func() error { _, err := NewDiscrete(r, []float64{1, math.NaN()}); return err },
		"sequential max<min":   func() error { _, err := NewSequential(3, 2); return err },
		"exponential mean inf": func() error { _, err := NewExponentialMean(r, math.Inf(1)); return err },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestSequentialShared(t *testing.T) {
	s, err := NewSequential(10, 19)
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 4, 250 // 1000 draws: every value exactly 100 times
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[int64]int{}
			for i := 0; i < each; i++ {
				local[s.Next()]++
			}
			mu.Lock()
			for k, v := range local {
				seen[k] += v
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	for v := int64(10); v < 20; v++ {
		if seen[v] != 100 {
			t.Errorf("value %d seen %d times, want 100", v, seen[v])
		}
	}
	if len(seen) != 10 {
		t.Errorf("values seen: %v", seen)
	}
	s2, _ := NewSequential(0, 2)
	for i, want := range []int64{0, 1, 2, 0, 1} {
		if got := s2.Next(); got != want {
			t.Errorf("draw %d: %d, want %d", i, got, want)
		}
	}
}

func TestCounterClaim(t *testing.T) {
	const start, end = 5, 10_005
	c := NewCounter(start)
	got := make([]int32, end)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(batch int64) {
			defer wg.Done()
			for {
				first, n := c.Claim(batch, end)
				if n == 0 {
					return
				}
				for k := first; k < first+n; k++ {
					got[k]++ // each k is written by one goroutine only
				}
			}
		}(int64(w*7 + 1))
	}
	wg.Wait()
	for k := int64(0); k < end; k++ {
		want := int32(0)
		if k >= start {
			want = 1
		}
		if got[k] != want {
			t.Fatalf("key %d claimed %d times, want %d", k, got[k], want)
		}
	}
}

func TestAckCounter(t *testing.T) {
	c := NewAckCounter(100)
	if c.Last() != 99 {
		t.Fatalf("Last before any ack = %d, want 99", c.Last())
	}
	a, b, d := c.Next(), c.Next(), c.Next()
	if a != 100 || b != 101 || d != 102 {
		t.Fatalf("Next = %d %d %d", a, b, d)
	}
	steps := []struct {
		ack, last int64
	}{{101, 99}, {102, 99}, {100, 102}}
	for _, s := range steps {
		if err := c.Acknowledge(s.ack); err != nil {
			t.Fatal(err)
		}
		if c.Last() != s.last {
			t.Errorf("after ack %d: Last = %d, want %d", s.ack, c.Last(), s.last)
		}
	}
	// A value still pending one window earlier blocks the slot.
	c2 := NewAckCounter(0)
	if err := c2.Acknowledge(1); err != nil {
		t.Fatal(err)
	}
	if err := c2.Acknowledge(1 + ackWindow); !errors.Is(err, ErrAckWindow) {
		t.Errorf("ack with the window full: %v, want ErrAckWindow", err)
	}
}

func TestAckCounterConcurrent(t *testing.T) {
	// Inserters acknowledge out of order; Last must never pass an
	// unacknowledged value and must end at the last one.
	c := NewAckCounter(0)
	const workers, each = 4, 20_000
	acked := make([]atomic.Bool, workers*each)
	var wg sync.WaitGroup
	fail := make(chan string, 1)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := newRand(seed)
			var pending []int64
			for i := 0; i < each; i++ {
				pending = append(pending, c.Next())
				if len(pending) > 8 || i == each-1 {
					r.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
					for _, v := range pending {
						acked[v].Store(true)
						if err := c.Acknowledge(v); err != nil {
							t.Error(err)
							return
						}
					}
					pending = pending[:0]
				}
				if last := c.Last(); last >= 0 && !acked[last].Load() {
					select {
					case fail <- "Last passed an unacknowledged value":
					default:
					}
				}
			}
		}(uint64(w))
	}
	wg.Wait()
	select {
	case msg := <-fail:
		t.Fatal(msg)
	default:
	}
	if last := c.Last(); last != workers*each-1 {
		t.Errorf("Last = %d at the end, want %d", last, workers*each-1)
	}
}

func TestSkewedLatest(t *testing.T) {
	basis := NewAckCounter(0)
	for i := 0; i < 50; i++ {
		if err := basis.Acknowledge(basis.Next()); err != nil {
			t.Fatal(err)
		}
	}
	l, err := NewSkewedLatest(newRand(12), basis, DefaultZipfianConstant)
	if err != nil {
		t.Fatal(err)
	}
	const last = 49 // Last − zipfian over 49 items: values 1..49, 49 most popular
	c := make([]int64, last+1)
	for i := 0; i < samples; i++ {
		v := l.Next()
		if v < 1 || v > last {
			t.Fatalf("value %d outside [1, %d]", v, last)
		}
		c[last-v]++ // index = distance from the latest
	}
	if err := chiSquared(c[:last], grayPMF(last, last, DefaultZipfianConstant, zetaSum(0, last, DefaultZipfianConstant, 0))); err != nil {
		t.Error(err)
	}
	// New acknowledged keys become the most popular.
	for i := 0; i < 10; i++ {
		basis.Acknowledge(basis.Next())
	}
	hits := 0
	for i := 0; i < 1000; i++ {
		if l.Next() == 59 {
			hits++
		}
	}
	if hits < 100 {
		t.Errorf("newest key drawn %d/1000 times after growth", hits)
	}
}

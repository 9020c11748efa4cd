package measure

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// codecHistograms are the shapes the codec must carry exactly.
func codecHistograms() map[string]*hdr.Histogram {
	one := NewHistogram()
	one.RecordValue(1234)

	wide := NewHistogram()
	for v := int64(HistMinUS); v <= HistMaxUS; v = v*5/4 + 1 {
		wide.RecordValues(v, v%7+1)
	}
	wide.RecordValue(HistMaxUS)

	large := NewHistogram()
	large.RecordValues(1, 1<<40)
	large.RecordValues(50_000, 1<<55)    // counter near the 9-byte LEB128 limit
	large.RecordValues(3_000_000, 1<<57) // counter needing the 9th byte's full 8 bits
	large.RecordValues(HistMaxUS, 3)

	// Other shapes than NewHistogram's: a unit magnitude above 0, 2 digits.
	coarse := hdr.New(1000, 10_000_000_000, 2)
	for v := int64(1000); v < 10_000_000_000; v *= 3 {
		coarse.RecordValues(v, v/1000)
	}

	return map[string]*hdr.Histogram{
		"empty": NewHistogram(), "one value": one, "wide range": wide,
		"large counts": large, "coarse": coarse,
		"realistic": realisticHistogram(),
	}
}

// realisticHistogram is one op's second at ~2k ops/s with latencies spread
// over three orders of magnitude.
func realisticHistogram() *hdr.Histogram {
	h := NewHistogram()
	for i := int64(0); i < 2000; i++ {
		h.RecordValue(50 + (i*i*7919)%20000)
	}
	return h
}

// sameHistogram fails unless got holds what want holds, seen through the
// library's API: shape, counts at every value, and statistics.
func sameHistogram(t *testing.T, got, want *hdr.Histogram) {
	t.Helper()
	if !got.Equals(want) {
		t.Errorf("histograms differ (Equals): total %d vs %d", got.TotalCount(), want.TotalCount())
	}
	if got.TotalCount() != want.TotalCount() || got.Min() != want.Min() || got.Max() != want.Max() || got.Mean() != want.Mean() {
		t.Errorf("got total %d, min %d, max %d, mean %g; want %d, %d, %d, %g",
			got.TotalCount(), got.Min(), got.Max(), got.Mean(), want.TotalCount(), want.Min(), want.Max(), want.Mean())
	}
	for _, q := range []float64{0, 1, 10, 50, 90, 99, 99.9, 99.99, 100} {
		if g, w := got.ValueAtQuantile(q), want.ValueAtQuantile(q); g != w {
			t.Errorf("p%g = %d, want %d", q, g, w)
		}
	}
	if g, w := got.Distribution(), want.Distribution(); !slices.Equal(g, w) {
		t.Errorf("counts differ: %d bars vs %d", len(g), len(w))
	}
}

func TestHistogramCodecMatchesLibrary(t *testing.T) {
	for name, h := range codecHistograms() {
		t.Run(name, func(t *testing.T) {
			ours, err := EncodeHistogram(h)
			if err != nil {
				t.Fatal(err)
			}
			t.Run("ours decoded by the library", func(t *testing.T) {
				back, err := hdr.Decode([]byte(base64.StdEncoding.EncodeToString(ours)))
				if err != nil {
					t.Fatal(err)
				}
				sameHistogram(t, back, h)
			})
			t.Run("ours decoded by ours", func(t *testing.T) {
				back, err := DecodeHistogram(ours)
				if err != nil {
					t.Fatal(err)
				}
				sameHistogram(t, back, h)
			})
			t.Run("library's decoded by ours", func(t *testing.T) {
				b64, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
				if err != nil {
					t.Fatal(err)
				}
				lib, err := base64.StdEncoding.DecodeString(string(b64))
				if err != nil {
					t.Fatal(err)
				}
				back, err := DecodeHistogram(lib)
				if err != nil {
					t.Fatal(err)
				}
				sameHistogram(t, back, h)
			})
		})
	}
}

// The encoder is pooled: encoding must not depend on what it encoded before.
func TestEncodeHistogramReusesNoState(t *testing.T) {
	hs := codecHistograms()
	first := map[string][]byte{}
	for name, h := range hs {
		b, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		first[name] = b
	}
	for name, h := range hs {
		b, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, first[name]) {
			t.Errorf("%s: encoding changed on a reused encoder", name)
		}
	}
	if _, err := EncodeHistogram(nil); err == nil {
		t.Error("EncodeHistogram(nil) succeeded")
	}
}

func TestDecodeHistogramRejectsGarbage(t *testing.T) {
	good, err := EncodeHistogram(realisticHistogram())
	if err != nil {
		t.Fatal(err)
	}
	// A counter past the end of the range: the library's Decode panics on it.
	sh, err := shapeOf(1, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	beyond := make([]int64, sh.counts+1)
	beyond[len(beyond)-1] = 7
	for name, b := range map[string][]byte{
		"nil":       nil,
		"text":      []byte("not a histogram"),
		"truncated": good[:len(good)/2],
		"bad zlib":  append(slices.Clone(good[:8]), make([]byte, len(good)-8)...),
		"beyond":    encodeRaw(t, 1, 2, 1, beyond),
		// A unit so large that hdr.New's bucket count loops forever (found by
		// FuzzDecodeHistogram).
		"huge unit": compressForTest(rawHeader(1<<60, 1<<62, 3)),
		"digits":    compressForTest(rawHeader(1, 1000, 6)),
		"range":     compressForTest(rawHeader(1000, 1999, 3)),
	} {
		if _, err := DecodeHistogram(b); !errors.Is(err, ErrBadHistogram) {
			t.Errorf("%s: err %v, want ErrBadHistogram", name, err)
		}
	}
}

// rawHeader is an uncompressed V2 header without counters.
func rawHeader(lowest, highest uint64, digits uint32) []byte {
	be := binary.BigEndian
	b := be.AppendUint32(nil, v2Cookie)
	b = be.AppendUint32(b, 0)
	b = be.AppendUint32(b, 0)
	b = be.AppendUint32(b, digits)
	b = be.AppendUint64(b, lowest)
	b = be.AppendUint64(b, highest)
	return be.AppendUint64(b, math.Float64bits(1))
}

// encodeRaw encodes counters as given, even beyond the histogram's range.
func encodeRaw(t *testing.T, lowest, highest, digits int64, counts []int64) []byte {
	t.Helper()
	h := hdr.Import(&hdr.Snapshot{LowestTrackableValue: lowest, HighestTrackableValue: highest, SignificantFigures: digits, Counts: counts})
	b, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestZigZag(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, 1 << 20, -(1 << 40), 1<<55 - 1, 1 << 55, 1 << 62, -1 << 63, 1<<63 - 1} {
		b := appendZigZag(nil, v)
		if len(b) > 9 {
			t.Errorf("%d: %d bytes", v, len(b))
		}
		if got, n := readZigZag(b); got != v || n != len(b) {
			t.Errorf("%d: read back %d (%d of %d bytes)", v, got, n, len(b))
		}
		if _, n := readZigZag(b[:len(b)-1]); n != 0 {
			t.Errorf("%d: truncated encoding read as complete", v)
		}
	}
}

// BenchmarkEncodeHistogram compares EncodeHistogram with the library's
// Encode on one realistic interval histogram: a run encodes two per op per
// second.
func BenchmarkEncodeHistogram(b *testing.B) {
	h := realisticHistogram()
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := EncodeHistogram(h); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Encode(hdr.V2CompressedEncodingCookieBase); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeHistogram compares DecodeHistogram with the library's Decode
// (which takes base64) on the same histogram.
func BenchmarkDecodeHistogram(b *testing.B) {
	raw, err := EncodeHistogram(realisticHistogram())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeHistogram(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := hdr.Decode([]byte(base64.StdEncoding.EncodeToString(raw))); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// valueAt must name, for every counter, a value the library counts there.
func TestShapeValueAt(t *testing.T) {
	for _, c := range [][3]int64{{1, HistMaxUS, 3}, {1, 2, 1}, {1000, 10_000_000_000, 2}, {7, 1 << 40, 5}, {1, 1 << 62, 4}} {
		s, err := shapeOf(c[0], c[1], c[2])
		if err != nil {
			t.Fatal(err)
		}
		h := hdr.New(c[0], c[1], int(c[2]))
		for i := range s.counts {
			if err := h.RecordValue(s.valueAt(i)); err != nil {
				t.Fatalf("shape %v: counter %d: %v", c, i, err)
			}
		}
		for i, n := range h.Export().Counts {
			if n != 1 {
				t.Fatalf("shape %v: counter %d counts %d, want 1", c, i, n)
			}
		}
	}
}

package measure

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// FuzzDecodeHistogram: stored histograms come from the results database and
// from other tools' logs, so any bytes either decode or fail with
// ErrBadHistogram, never panic; and a histogram that decodes re-encodes to
// bytes that decode to the same counters. Each input is decoded as it is and
// also compressed behind a valid outer header, so the fuzzer reaches the
// header and counters inside the zlib stream (mutated zlib bytes seldom
// inflate).
func FuzzDecodeHistogram(f *testing.F) {
	for _, h := range codecHistograms() {
		b, err := EncodeHistogram(h)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		raw, err := inflateForTest(b)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte{})
	f.Add([]byte("not a histogram"))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecode(t, b)
		checkDecode(t, compressForTest(b))
	})
}

func checkDecode(t *testing.T, b []byte) {
	t.Helper()
	h, err := DecodeHistogram(b)
	if err != nil {
		if !errors.Is(err, ErrBadHistogram) {
			t.Fatalf("error %v does not wrap ErrBadHistogram", err)
		}
		return
	}
	again, err := EncodeHistogram(h)
	if err != nil {
		t.Fatalf("re-encoding a decoded histogram: %v", err)
	}
	back, err := DecodeHistogram(again)
	if err != nil {
		t.Fatalf("decoding a re-encoded histogram: %v", err)
	}
	want, got := h.Export(), back.Export()
	if got.LowestTrackableValue != want.LowestTrackableValue || got.HighestTrackableValue != want.HighestTrackableValue ||
		got.SignificantFigures != want.SignificantFigures || !slices.Equal(got.Counts, want.Counts) {
		t.Fatalf("re-encoded histogram differs: range [%d, %d] %d digits, total %d; want [%d, %d] %d digits, total %d",
			got.LowestTrackableValue, got.HighestTrackableValue, got.SignificantFigures, back.TotalCount(),
			want.LowestTrackableValue, want.HighestTrackableValue, want.SignificantFigures, h.TotalCount())
	}
}

// compressForTest wraps a raw V2 payload in the compressed encoding's header.
func compressForTest(raw []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	out := binary.BigEndian.AppendUint32(nil, v2CompressedCookie)
	out = binary.BigEndian.AppendUint32(out, uint32(z.Len()))
	return append(out, z.Bytes()...)
}

// inflateForTest returns the raw V2 payload inside a compressed encoding.
func inflateForTest(b []byte) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(b[8:]))
	if err != nil {
		return nil, err
	}
	var raw bytes.Buffer
	_, err = raw.ReadFrom(zr)
	return raw.Bytes(), err
}

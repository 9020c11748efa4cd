package results

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// encodeHist returns h in HdrHistogram's V2 compressed encoding as raw bytes
// (the library wraps it in base64; the database stores binary). An empty or
// nil histogram is stored as NULL.
//
// It writes the format itself rather than calling h.Encode, which spends
// ~1 ms per histogram on reflection-based binary.Write per counter and zlib's
// best compression: a run stores one histogram per op per second. Any
// HdrHistogram decoder reads the result (zlib level is not part of the format).
func encodeHist(h *hdr.Histogram) ([]byte, error) {
	var e histEncoder
	return e.encode(h)
}

// histEncoder keeps its zlib state (~1 MB, whatever the level) between
// histograms. It is not safe for concurrent use; Store pools them.
type histEncoder struct {
	zw      *zlib.Writer
	payload []byte
	raw, z  bytes.Buffer
}

func (e *histEncoder) encode(h *hdr.Histogram) ([]byte, error) {
	if h == nil || h.TotalCount() == 0 {
		return nil, nil
	}
	snap := h.Export()
	counts := snap.Counts
	last := len(counts) - 1
	for last >= 0 && counts[last] == 0 {
		last--
	}
	// Payload: ZigZag LEB128 counters; a run of n > 1 zeros is written as -n.
	payload := e.payload[:0]
	for i := 0; i <= last; i++ {
		c := counts[i]
		if c == 0 {
			j := i + 1
			for j <= last && counts[j] == 0 {
				j++
			}
			if n := int64(j - i); n > 1 {
				payload = appendZigZag(payload, -n)
				i = j - 1
				continue
			}
		}
		payload = appendZigZag(payload, c)
	}
	e.payload = payload
	raw := &e.raw
	raw.Reset()
	be := binary.BigEndian
	raw.Write(be.AppendUint32(nil, uint32(hdr.V2EncodingCookieBase|0x10)))
	raw.Write(be.AppendUint32(nil, uint32(len(payload))))
	raw.Write(be.AppendUint32(nil, 0)) // normalizing index offset: always 0 in Go
	raw.Write(be.AppendUint32(nil, uint32(snap.SignificantFigures)))
	raw.Write(be.AppendUint64(nil, uint64(snap.LowestTrackableValue)))
	raw.Write(be.AppendUint64(nil, uint64(snap.HighestTrackableValue)))
	raw.Write(be.AppendUint64(nil, math.Float64bits(1))) // integer to double ratio
	raw.Write(payload)

	z := &e.z
	z.Reset()
	if e.zw == nil {
		zw, err := zlib.NewWriterLevel(z, zlib.BestSpeed)
		if err != nil {
			return nil, fmt.Errorf("encode histogram: %w", err)
		}
		e.zw = zw
	} else {
		e.zw.Reset(z)
	}
	if _, err := e.zw.Write(raw.Bytes()); err != nil {
		return nil, fmt.Errorf("encode histogram: %w", err)
	}
	if err := e.zw.Close(); err != nil {
		return nil, fmt.Errorf("encode histogram: %w", err)
	}
	out := make([]byte, 0, 8+z.Len())
	out = be.AppendUint32(out, uint32(hdr.V2CompressedEncodingCookieBase|0x10))
	out = be.AppendUint32(out, uint32(z.Len()))
	return append(out, z.Bytes()...), nil
}

// appendZigZag appends v ZigZag- and LEB128-encoded, as HdrHistogram does
// (identical to plain LEB128 for the values counters take).
func appendZigZag(b []byte, v int64) []byte {
	return binary.AppendUvarint(b, uint64((v<<1)^(v>>63)))
}

// DecodeHist decodes a histogram column (hist, svc_hist); NULL gives nil.
func DecodeHist(raw []byte) (*hdr.Histogram, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	h, err := hdr.Decode([]byte(base64.StdEncoding.EncodeToString(raw)))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// encodeClasses stores errors by class as a small JSON object with sorted
// keys (encoding/json sorts map keys), '{}' when there are none.
func encodeClasses(m map[string]int64) string {
	clean := make(map[string]int64, len(m))
	for k, v := range m {
		if v != 0 {
			clean[k] = v
		}
	}
	b, _ := json.Marshal(clean) // a map[string]int64 always marshals
	return string(b)
}

func decodeClasses(s string) (map[string]int64, error) {
	m := map[string]int64{}
	if s == "" {
		return m, nil
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("stored error classes %q: %w", s, err)
	}
	return m, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

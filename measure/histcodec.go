package measure

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The histogram codec: HdrHistogram's V2 compressed encoding, as raw bytes
// (hdrhistogram-go's Encode and Decode wrap the same bytes in base64). The
// results store keeps these bytes in its hist columns and the interval log
// (LogWriter) writes their base64, so any HdrHistogram implementation reads
// both.
//
// It is written here rather than calling Histogram.Encode, which spends ~1 ms
// per histogram on reflection-based binary.Write per counter and on zlib's
// best compression, while a run encodes two histograms per op per second.
// The zlib level is not part of the format.

const (
	v2Cookie           = uint32(hdr.V2EncodingCookieBase | 0x10)
	v2CompressedCookie = uint32(hdr.V2CompressedEncodingCookieBase | 0x10)
	v2HeaderSize       = 40 // cookie, payload length, index offset, digits, lowest, highest, ratio
)

// histEncoder keeps its zlib state (~1 MB, whatever the level) and buffers
// between histograms; encoders are pooled, one in use per goroutine.
type histEncoder struct {
	zw      *zlib.Writer
	payload []byte
	z       bytes.Buffer
}

var encoders = sync.Pool{New: func() any { return new(histEncoder) }}

// EncodeHistogram returns h in HdrHistogram's V2 compressed encoding. An empty
// histogram is encoded too (callers that store nothing for it check first).
// It is safe for concurrent use.
func EncodeHistogram(h *hdr.Histogram) ([]byte, error) {
	if h == nil {
		return nil, errors.New("encode histogram: nil histogram")
	}
	e := encoders.Get().(*histEncoder)
	defer encoders.Put(e)
	return e.encode(h)
}

func (e *histEncoder) encode(h *hdr.Histogram) ([]byte, error) {
	snap := h.Export()
	counts := snap.Counts
	last := len(counts) - 1
	for last >= 0 && counts[last] == 0 {
		last--
	}
	// Header, then the counters: ZigZag LEB128, a run of n > 1 zeros as -n.
	be := binary.BigEndian
	b := e.payload[:0]
	b = be.AppendUint32(b, v2Cookie)
	b = be.AppendUint32(b, 0) // payload length, set below
	b = be.AppendUint32(b, 0) // normalizing index offset: always 0 in Go
	b = be.AppendUint32(b, uint32(snap.SignificantFigures))
	b = be.AppendUint64(b, uint64(snap.LowestTrackableValue))
	b = be.AppendUint64(b, uint64(snap.HighestTrackableValue))
	b = be.AppendUint64(b, math.Float64bits(1)) // integer to double ratio
	for i := 0; i <= last; i++ {
		c := counts[i]
		if c == 0 {
			j := i + 1
			for j <= last && counts[j] == 0 {
				j++
			}
			if n := int64(j - i); n > 1 {
				b = appendZigZag(b, -n)
				i = j - 1
				continue
			}
		}
		b = appendZigZag(b, c)
	}
	be.PutUint32(b[4:], uint32(len(b)-v2HeaderSize))
	e.payload = b

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
	if _, err := e.zw.Write(b); err != nil {
		return nil, fmt.Errorf("encode histogram: %w", err)
	}
	if err := e.zw.Close(); err != nil {
		return nil, fmt.Errorf("encode histogram: %w", err)
	}
	out := make([]byte, 0, 8+z.Len())
	out = be.AppendUint32(out, v2CompressedCookie)
	out = be.AppendUint32(out, uint32(z.Len()))
	return append(out, z.Bytes()...), nil
}

// appendZigZag appends v as HdrHistogram's ZigZag LEB128-64b9B: at most nine
// bytes, the ninth holding a full 8 bits (unlike binary.AppendUvarint, which
// differs from it for values of 2⁵⁶ and above).
func appendZigZag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for range 8 {
		if u < 0x80 {
			return append(b, byte(u))
		}
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// readZigZag reads a value written by appendZigZag and its length, or n = 0
// when b ends within it.
func readZigZag(b []byte) (v int64, n int) {
	var u uint64
	for i := 0; i < 9 && i < len(b); i++ {
		if i == 8 {
			u |= uint64(b[i]) << 56
			return int64(u>>1) ^ -int64(u&1), 9
		}
		u |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1
		}
	}
	return 0, 0
}

// ErrBadHistogram is wrapped by DecodeHistogram when its input is not a
// histogram in the V2 compressed encoding.
var ErrBadHistogram = errors.New("not an HdrHistogram V2 compressed histogram")

// DecodeHistogram decodes the V2 compressed encoding (as EncodeHistogram or
// any HdrHistogram implementation writes it, without base64). Unlike
// hdrhistogram-go's Decode it returns an error, not a panic, on a counter
// beyond the histogram's range.
func DecodeHistogram(b []byte) (*hdr.Histogram, error) {
	var h *hdr.Histogram
	err := decodeCounters(b, func(lowest, highest, digits int64) *hdr.Histogram {
		h = hdr.New(lowest, highest, int(digits))
		return h
	})
	return h, err
}

// AddEncodedHistogram adds the histogram encoded in b (as DecodeHistogram
// reads it) to dst, counter by counter: exactly what dst.Merge of the
// decoded histogram does, without allocating one (distributed runs merge
// hundreds per second). On an error dst may hold part of b.
func AddEncodedHistogram(dst *hdr.Histogram, b []byte) error {
	return decodeCounters(b, func(int64, int64, int64) *hdr.Histogram { return dst })
}

// decodeCounters checks b and records its counters into the histogram
// into returns for b's range.
func decodeCounters(b []byte, into func(lowest, highest, digits int64) *hdr.Histogram) error {
	be := binary.BigEndian
	if len(b) < 8 || be.Uint32(b)&^0xf0 != uint32(hdr.V2CompressedEncodingCookieBase) {
		return fmt.Errorf("decode histogram: %w", ErrBadHistogram)
	}
	n := be.Uint32(b[4:])
	if uint64(n) > uint64(len(b)-8) {
		return fmt.Errorf("decode histogram: %w: %d compressed bytes announced, %d present", ErrBadHistogram, n, len(b)-8)
	}
	d := decoders.Get().(*histDecoder)
	defer decoders.Put(d)
	raw, err := d.inflate(b[8 : 8+n])
	if err != nil {
		return fmt.Errorf("decode histogram: %w: %w", ErrBadHistogram, err)
	}
	if len(raw) < v2HeaderSize || be.Uint32(raw)&^0xf0 != uint32(hdr.V2EncodingCookieBase) ||
		uint64(be.Uint32(raw[4:])) != uint64(len(raw)-v2HeaderSize) {
		return fmt.Errorf("decode histogram: %w: bad header", ErrBadHistogram)
	}
	digits := int64(be.Uint32(raw[12:]))
	lowest, highest := int64(be.Uint64(raw[16:])), int64(be.Uint64(raw[24:]))
	if !rangeSupported(lowest, highest, digits) {
		return fmt.Errorf("decode histogram: %w: range [%d, %d] with %d digits", ErrBadHistogram, lowest, highest, digits)
	}
	sh, err := shapeOf(lowest, highest, digits)
	if err != nil {
		return fmt.Errorf("decode histogram: %w: %w", ErrBadHistogram, err)
	}
	h := into(lowest, highest, digits)
	payload := raw[v2HeaderSize:]
	for i := 0; len(payload) > 0; {
		v, k := readZigZag(payload)
		if k == 0 {
			return fmt.Errorf("decode histogram: %w: truncated counter", ErrBadHistogram)
		}
		payload = payload[k:]
		if v <= 0 { // -v zeros (one zero is written as 0)
			i += max(int(-v), 1)
			if i > sh.counts {
				return fmt.Errorf("decode histogram: %w: counters beyond its range", ErrBadHistogram)
			}
			continue
		}
		if i >= sh.counts {
			return fmt.Errorf("decode histogram: %w: counters beyond its range", ErrBadHistogram)
		}
		if err := h.RecordValues(sh.valueAt(i), v); err != nil {
			return fmt.Errorf("decode histogram: %w: %w", ErrBadHistogram, err)
		}
		i++
	}
	return nil
}

// rangeSupported tells whether hdr.New can lay a histogram out: besides the
// library's own limits (1 to 5 digits, highest ≥ 2·lowest), its top value
// (2·half sub-buckets of the lowest unit) must fit in an int64, as Java's
// HdrHistogram requires; beyond it hdr.New's bucket count loops forever.
func rangeSupported(lowest, highest, digits int64) bool {
	if digits < 1 || digits > 5 || lowest < 1 {
		return false
	}
	unitBits := bits.Len64(uint64(lowest)) - 1
	halfCountBits := bits.Len64(uint64(2*math.Pow10(int(digits)))-1) - 1
	return unitBits+halfCountBits <= 61 && highest >= 2*lowest
}

// histDecoder keeps its zlib state and buffer between histograms; decoders
// are pooled like encoders (a report decodes one histogram per op per second).
type histDecoder struct {
	src bytes.Reader
	zr  io.ReadCloser
	raw bytes.Buffer
}

var decoders = sync.Pool{New: func() any { return new(histDecoder) }}

// inflate returns the zlib-decompressed z, valid until the next call.
func (d *histDecoder) inflate(z []byte) ([]byte, error) {
	d.src.Reset(z)
	if d.zr == nil {
		zr, err := zlib.NewReader(&d.src)
		if err != nil {
			return nil, err
		}
		d.zr = zr
	} else if err := d.zr.(zlib.Resetter).Reset(&d.src, nil); err != nil {
		return nil, err
	}
	d.raw.Reset()
	if _, err := d.raw.ReadFrom(d.zr); err != nil {
		return nil, err
	}
	return d.raw.Bytes(), nil
}

// shape is what DecodeHistogram needs to know of a histogram's layout, which
// hdrhistogram-go does not export: the number of counters and the value each
// one counts, so a counter is restored with RecordValues (Import would
// allocate the counters twice, which made decoding slower than the library's).
type shape struct {
	counts        int
	halfCountBits uint // log2 of half the sub-buckets per bucket
	unitBits      uint // log2 of the smallest discernible unit
}

// valueAt is the lowest value counted by counter i, the inverse of the
// library's countsIndexFor: bucket 0 holds counters [0, 2·half), bucket b ≥ 1
// holds [(b+1)·half, (b+2)·half) for sub-buckets [half, 2·half).
func (s shape) valueAt(i int) int64 {
	half := 1 << s.halfCountBits
	bucket := 0
	if i >= 2*half {
		bucket = i>>s.halfCountBits - 1
	}
	sub := i - bucket*half
	return int64(sub) << (uint(bucket) + s.unitBits)
}

var shapes sync.Map // [3]int64{lowest, highest, digits} → shape

// shapeOf works out the layout as hdr.New does, once per shape, and checks it
// against the library on a few counters.
func shapeOf(lowest, highest, digits int64) (shape, error) {
	key := [3]int64{lowest, highest, digits}
	if s, ok := shapes.Load(key); ok {
		return s.(shape), nil
	}
	s := shape{
		counts: len(hdr.New(lowest, highest, int(digits)).Export().Counts),
		// 2·10^digits rounded up to a power of two is the sub-bucket count.
		halfCountBits: uint(bits.Len64(uint64(2*math.Pow10(int(digits)))-1)) - 1,
		unitBits:      uint(bits.Len64(uint64(lowest))) - 1,
	}
	for _, i := range []int{0, 1, s.counts / 2, s.counts - 1} {
		h := hdr.New(lowest, highest, int(digits))
		if h.RecordValue(s.valueAt(i)) != nil || h.Export().Counts[i] != 1 {
			return shape{}, fmt.Errorf("unsupported range [%d, %d] with %d digits", lowest, highest, digits)
		}
	}
	shapes.Store(key, s)
	return s, nil
}

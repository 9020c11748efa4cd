// Package fieldcodec encodes a driver.Record as one compact byte string, for
// key-value systems that store a record as a single value (etcd, Hazelcast).
//
// Layout: uvarint field count, then per field in name order: uvarint name
// length, name, uvarint value length, value. Name order makes the encoding
// deterministic, so equal records give equal bytes (compare-and-set by value
// relies on that only for values it read itself, but tests and dedup like it).
package fieldcodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/dbrig/dbrig/driver"
)

// ErrCorrupt is wrapped by Decode when the bytes are not a valid encoding.
var ErrCorrupt = errors.New("fieldcodec: corrupt record encoding")

// Size is the exact length of r's encoding.
func Size(r driver.Record) int {
	n := uvarintLen(uint64(len(r)))
	for k, v := range r {
		n += uvarintLen(uint64(len(k))) + len(k) + uvarintLen(uint64(len(v))) + len(v)
	}
	return n
}

// Append appends the encoding of r to dst. The result does not alias r.
func Append(dst []byte, r driver.Record) []byte {
	names := make([]string, 0, len(r))
	for k := range r {
		names = append(names, k)
	}
	slices.Sort(names)
	dst = slices.Grow(dst, Size(r))
	dst = binary.AppendUvarint(dst, uint64(len(r)))
	for _, k := range names {
		v := r[k]
		dst = binary.AppendUvarint(dst, uint64(len(k)))
		dst = append(dst, k...)
		dst = binary.AppendUvarint(dst, uint64(len(v)))
		dst = append(dst, v...)
	}
	return dst
}

// Encode returns the encoding of r in a new slice.
func Encode(r driver.Record) []byte { return Append(nil, r) }

// Decode returns the fields of b named in fields (all when fields is nil).
// Values alias b: callers pass bytes they own (a fresh server response).
func Decode(b []byte, fields []string) (driver.Record, error) {
	n, b, err := uvarint(b)
	if err != nil {
		return nil, err
	}
	if n > uint64(len(b)) { // every field takes at least 2 bytes
		return nil, fmt.Errorf("%w: %d fields in %d bytes", ErrCorrupt, n, len(b))
	}
	size := int(n)
	if fields != nil {
		size = min(size, len(fields))
	}
	rec := make(driver.Record, size)
	for i := uint64(0); i < n; i++ {
		var name, val []byte
		if name, b, err = chunk(b); err != nil {
			return nil, err
		}
		if val, b, err = chunk(b); err != nil {
			return nil, err
		}
		if fields == nil || slices.Contains(fields, string(name)) {
			rec[string(name)] = val
		}
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(b))
	}
	return rec, nil
}

// Merge returns the encoding of old with the fields of upd written over it
// (read-modify-write of an update that names only some fields).
func Merge(old []byte, upd driver.Record) ([]byte, error) {
	rec, err := Decode(old, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range upd {
		rec[k] = v
	}
	return Encode(rec), nil
}

func uvarint(b []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, nil, fmt.Errorf("%w: bad length prefix", ErrCorrupt)
	}
	return v, b[n:], nil
}

func chunk(b []byte) (c, rest []byte, err error) {
	n, b, err := uvarint(b)
	if err != nil {
		return nil, nil, err
	}
	if n > uint64(len(b)) {
		return nil, nil, fmt.Errorf("%w: length %d exceeds remaining %d bytes", ErrCorrupt, n, len(b))
	}
	return b[:n:n], b[n:], nil
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

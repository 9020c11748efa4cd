package pebble

import (
	"encoding/binary"
	"errors"

	"github.com/dbrig/dbrig/driver"
)

// A record is stored as one value:
//
//	uvarint(len(name)) name uvarint(len(value)) value   ... once per field
//
// One value per record makes Read one Get and Insert one Set; Update is a
// read-modify-write of a value a few hundred bytes long, cheaper than one key
// per field would make Read (an iterator over the fields). Field order is not
// significant.

var errCorrupt = errors.New("corrupt record encoding")

// appendField appends one field.
func appendField[S string | []byte](b []byte, name S, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(name)))
	b = append(b, name...)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// encodedSize is an upper bound of the encoding of r.
func encodedSize(r driver.Record) int {
	n := 0
	for f, v := range r {
		n += 2*binary.MaxVarintLen32 + len(f) + len(v)
	}
	return n
}

// encode returns the encoding of r.
func encode(r driver.Record) []byte {
	b := make([]byte, 0, encodedSize(r))
	for f, v := range r {
		b = appendField(b, f, v)
	}
	return b
}

// fields calls fn for each field of an encoded record; name and value alias b.
func fields(b []byte, fn func(name, value []byte)) error {
	for len(b) > 0 {
		var name, value []byte
		var ok bool
		if name, b, ok = chunk(b); !ok {
			return errCorrupt
		}
		if value, b, ok = chunk(b); !ok {
			return errCorrupt
		}
		fn(name, value)
	}
	return nil
}

func chunk(b []byte) (c, rest []byte, ok bool) {
	if len(b) > 0 && b[0] < 0x80 { // one-byte length: names and short values
		n := int(b[0])
		if len(b)-1 < n {
			return nil, nil, false
		}
		return b[1 : 1+n], b[1+n:], true
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

// decode copies the selected fields (all when want is nil) of an encoded
// record out of b, which the caller may then release: one allocation for the
// bytes of all fields, and field names taken from want where it has them.
func decode(b []byte, want []string) (driver.Record, error) {
	// pick returns the name to store a field under, or "", false to skip it.
	pick := func(name []byte) (string, bool) {
		if want == nil {
			return "", true
		}
		for _, w := range want {
			if w == string(name) {
				return w, true
			}
		}
		return "", false
	}
	size, n := 0, 0
	if err := fields(b, func(name, value []byte) {
		if _, ok := pick(name); ok {
			size += len(value)
			n++
		}
	}); err != nil {
		return nil, err
	}
	r := make(driver.Record, n)
	buf := make([]byte, 0, size)
	_ = fields(b, func(name, value []byte) {
		key, ok := pick(name)
		if !ok {
			return
		}
		if want == nil {
			key = string(name)
		}
		i := len(buf)
		buf = append(buf, value...)
		r[key] = buf[i:len(buf):len(buf)]
	})
	return r, nil
}

// merge returns old with the fields of values overwritten or added.
func merge(old []byte, values driver.Record) ([]byte, error) {
	b := make([]byte, 0, len(old)+encodedSize(values))
	err := fields(old, func(name, value []byte) {
		if _, ok := values[string(name)]; !ok {
			b = appendField(b, name, value)
		}
	})
	if err != nil {
		return nil, err
	}
	for f, v := range values {
		b = appendField(b, f, v)
	}
	return b, nil
}

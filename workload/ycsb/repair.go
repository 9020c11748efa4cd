package ycsb

import (
	"errors"

	"github.com/dbrig/dbrig/driver"
)

// ErrNotRegenerable is returned by Originals when values are random: only
// with dataintegrity=true is a value a function of its key and field.
var ErrNotRegenerable = errors.New("values are random: regenerating them needs -p dataintegrity=true")

// Originals returns, for each of keys that the load phase writes, the
// record it writes (regenerated: with dataintegrity every value is a
// function of its key and field); a key the load does not write (one an
// experiment inserted) has no entry. It costs one key computation per
// loaded record. dbrig rate --reset repair puts these back.
func (w *Workload) Originals(keys []string) (map[string]driver.Record, error) {
	if !w.dataIntegrity {
		return nil, ErrNotRegenerable
	}
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	out := make(map[string]driver.Record, len(keys))
	var buf [64]byte
	for n := w.insertStart; n < w.insertStart+w.insertCount && len(out) < len(want); n++ {
		k := w.appendKey(buf[:0], n)
		if !want[string(k)] {
			continue
		}
		rec := make(driver.Record, len(w.fieldNames))
		for _, f := range w.fieldNames {
			rec[f] = appendDeterministic(nil, string(k), f, int(w.fieldLen))
		}
		out[string(k)] = rec
	}
	return out, nil
}

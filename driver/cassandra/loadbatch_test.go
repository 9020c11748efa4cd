package cassandra

import (
	"bytes"
	"strconv"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbrig/dbrig/driver"
)

// TestLoadBatches: every record in exactly one batch, batches within their
// bounds, and a batch only of records whose replicas (taken from the ring
// here, not from the grouping's names) are the same hosts.
func TestLoadBatches(t *testing.T) {
	hosts := []*gocql.HostInfo{
		ringHost(t, "dc1", "-6000000000000000000", "1000000000000000000"),
		ringHost(t, "dc1", "-3000000000000000000", "4000000000000000000"),
		ringHost(t, "dc1", "0", "7000000000000000000"),
	}
	p := &tokenAware{}
	for _, h := range hosts {
		p.AddHost(h)
	}
	p.murmur.Store(true)
	keys := make([]string, 400)
	for i := range keys {
		keys[i] = "user" + strconv.Itoa(i*7919)
	}
	record := func(fields, size int) driver.Record {
		r := driver.Record{}
		for f := range fields {
			r["field"+strconv.Itoa(f)] = bytes.Repeat([]byte{'x'}, size)
		}
		return r
	}
	tests := []struct {
		name         string
		rf, max      int
		record       driver.Record
		wantMax      int // records a batch may hold
		wantSomeOver int // some batch holds more than this
	}{
		{"one replica", 1, 4, record(10, 100), 4, 1},
		{"two replicas", 2, 4, record(10, 100), 4, 1},
		{"three replicas: one set", 3, 8, record(10, 100), 4, 3}, // loadBatchBytes: 4 of ≈1 KiB
		{"small records", 2, 16, record(10, 10), 16, 8},
		{"one per batch", 2, 1, record(10, 100), 1, 0},
		{"over the bytes alone", 1, 4, record(10, 600), 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			factor := map[string]int{"": tc.rf}
			p.factor = map[string]map[string]int{"ks": factor}
			values := make([]driver.Record, len(keys))
			for i := range values {
				values[i] = tc.record
			}
			set := func(k string) (string, bool) {
				s := p.replicaSet("ks", []byte(k))
				return s, s != ""
			}
			got := loadBatches(keys, values, set, tc.max, loadBatchBytes)
			seen := make([]int, len(keys))
			biggest := 0
			r := p.ring.Load()
			for _, b := range got {
				biggest = max(biggest, len(b))
				if len(b) > tc.wantMax {
					t.Errorf("a batch of %d records, want at most %d", len(b), tc.wantMax)
				}
				first := r.replicas(murmur3([]byte(keys[b[0]])), factor)
				for _, i := range b {
					seen[i]++
					if rs := r.replicas(murmur3([]byte(keys[i])), factor); !sameHosts(rs, first) {
						t.Errorf("batch of %q holds %q: replicas %s, not %s", keys[b[0]], keys[i], ids(rs), ids(first))
					}
				}
			}
			for i, n := range seen {
				if n != 1 {
					t.Errorf("%q in %d batches, want 1", keys[i], n)
				}
			}
			if biggest <= tc.wantSomeOver {
				t.Errorf("largest batch %d records, want more than %d", biggest, tc.wantSomeOver)
			}
		})
	}
}

// A key the grouping cannot place goes alone.
func TestLoadBatchesUnplaced(t *testing.T) {
	keys := []string{"a", "b", "c"}
	values := []driver.Record{{}, {}, {}}
	got := loadBatches(keys, values, func(string) (string, bool) { return "", false }, 4, loadBatchBytes)
	if len(got) != 3 {
		t.Errorf("%d batches, want 3: %v", len(got), got)
	}
	got = loadBatches(keys, values, func(string) (string, bool) { return "", true }, 4, loadBatchBytes)
	if len(got) != 1 || len(got[0]) != 3 {
		t.Errorf("one node: %v, want one batch of 3", got)
	}
}

func sameHosts(a, b []*gocql.HostInfo) bool {
	if len(a) != len(b) {
		return false
	}
	for _, h := range a {
		found := false
		for _, o := range b {
			found = found || same(h, o)
		}
		if !found {
			return false
		}
	}
	return true
}

func ids(hs []*gocql.HostInfo) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.HostID())
	}
	return out
}

package benchkit

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"testing"

	"github.com/dbrig/dbrig/driver/sim"
)

func TestRecords(t *testing.T) {
	keys, recs := Records(3)
	if len(keys) != 3 || keys[2] != "user0000000002" {
		t.Fatalf("keys %q", keys)
	}
	for i, r := range recs {
		if len(r) != Fields || len(r["field9"]) != ValueLen {
			t.Fatalf("record %d has %d fields, field9 of %d bytes", i, len(r), len(r["field9"]))
		}
	}
	if string(recs[0]["field0"]) == string(recs[1]["field0"]) {
		t.Error("records 0 and 1 have the same field0")
	}
}

// TestParallel checks that every operation number 0..b.N-1 runs exactly once.
func TestParallel(t *testing.T) {
	benchtime(t, "5000x")
	var mu sync.Mutex
	var ns, bad []int
	testing.Benchmark(func(b *testing.B) {
		seen := make([]int, b.N)
		Parallel(b, 4, func(i int) error {
			mu.Lock()
			seen[i]++
			mu.Unlock()
			return nil
		})
		for i, n := range seen {
			if n != 1 {
				bad = append(bad, i)
			}
		}
		ns = append(ns, b.N)
	})
	if len(ns) == 0 || ns[len(ns)-1] != 5000 || len(bad) > 0 {
		t.Fatalf("runs with b.N %v; operations not run exactly once: %v", ns, bad)
	}
}

// benchtime sets -test.benchtime for testing.Benchmark calls in this test: a
// fixed count keeps them short (the default is a second of runs each).
func benchtime(t *testing.T, v string) {
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set(v); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bt.Value.Set(old) })
}

// TestLoops runs the benchmark loops against the in-memory sim driver and
// checks what they leave behind.
func TestLoops(t *testing.T) {
	benchtime(t, "50x")
	ctx := context.Background()
	db := sim.New(sim.Model{})
	defer db.Close()
	var keys []string
	testing.Benchmark(func(b *testing.B) { keys = Ops(b, db, "ops", 20, true) })
	testing.Benchmark(func(b *testing.B) { PointReads(b, db, "reads", 20) })
	for _, batch := range []int{1, 7} {
		if r := testing.Benchmark(func(b *testing.B) { Load(b, db, fmt.Sprint("load", batch), 3, batch) }); r.N != 50 {
			t.Errorf("Load with batch %d: b.N %d, want 50", batch, r.N)
		}
	}
	if len(keys) != 20 || keys[19] != Key(19) {
		t.Errorf("Ops returned keys %q", keys)
	}
	// Ops and PointReads loaded their 20 records; Load loaded records
	// 0..49 (the last b.N) with Insert and in batches of 7.
	for _, tc := range []struct {
		table string
		n     int
	}{{"ops", 20}, {"reads", 20}, {"load1", 50}, {"load7", 50}} {
		got, err := db.Scan(ctx, tc.table, "", 1000, []string{"field0"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.n {
			t.Errorf("table %s holds %d records, want %d", tc.table, len(got), tc.n)
		}
	}
}

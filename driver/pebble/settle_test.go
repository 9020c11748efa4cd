package pebble

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dbrig/dbrig/driver"
)

// loadHashed writes n records in hashed key order, as YCSB's load does:
// every flushed file spans the whole key range, so Pebble compacts L0.
func loadHashed(t *testing.T, db *DB, n int) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(1, 2))
	for b := 0; b < n; b += 100 {
		keys := make([]string, 0, 100)
		recs := make([]driver.Record, 0, 100)
		for i := b; i < min(b+100, n); i++ {
			keys = append(keys, fmt.Sprintf("user%d", uint64(i)*0x9E3779B97F4A7C15))
			rec := driver.Record{}
			for f := range 10 { // incompressible, as YCSB's values: the data fills several levels
				val := make([]byte, 100)
				for j := range val {
					val[j] = byte(rnd.Uint32())
				}
				rec[fmt.Sprintf("field%d", f)] = val
			}
			recs = append(recs, rec)
		}
		if err := db.InsertBatch(context.Background(), "usertable", keys, recs); err != nil {
			t.Fatal(err)
		}
	}
}

// After Settle, nothing runs in the background and the memtable is on
// disk: the next Open has no WAL to replay into L0.
func TestSettleWaitsForCompactions(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 60,000 records")
	}
	dir := t.TempDir() + "/pb"
	db := open(t, map[string]string{PropDir: dir}).(*DB)
	loadHashed(t, db, 100000) // ~100 MB: more than Pebble's base level holds, so two levels
	loadHashed(t, db, 2000)   // rewrites some keys, as an experiment and a restore do
	if err := db.Settle(context.Background(), "usertable"); err != nil {
		t.Fatal(err)
	}
	m := db.db.Metrics()
	if m.Compact.NumInProgress != 0 || m.Flush.NumInProgress != 0 {
		t.Errorf("after Settle: %d compactions, %d flushes in progress; want none", m.Compact.NumInProgress, m.Flush.NumInProgress)
	}
	if m.Levels[0].Sublevels > settleL0 {
		t.Errorf("after Settle: L0 has %d sublevels, want at most %d", m.Levels[0].Sublevels, settleL0)
	}
	levels := 0
	for _, l := range m.Levels {
		if l.NumFiles > 0 {
			levels++
		}
	}
	if levels != 1 || m.Levels[0].NumFiles != 0 {
		t.Errorf("after Settle: files in %d levels (L0: %d), want all in one level below L0 (the full compaction)", levels, m.Levels[0].NumFiles)
	}
	if m.Compact.Count == 0 {
		t.Errorf("no compaction ran during the load: the test does not load enough to show Settle waiting")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopened, there is nothing to flush: the WAL was empty.
	db = open(t, map[string]string{PropDir: dir}).(*DB)
	defer db.Close()
	if m := db.db.Metrics(); m.Flush.Count != 0 || m.Compact.NumInProgress != 0 {
		t.Errorf("reopened after Settle: %d flushes, %d compactions in progress; want none", m.Flush.Count, m.Compact.NumInProgress)
	}
}

func TestSettleCancelled(t *testing.T) {
	db := open(t, nil).(*DB)
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := db.Settle(ctx, "usertable"); err == nil {
		t.Error("Settle with a cancelled context: no error")
	}
}

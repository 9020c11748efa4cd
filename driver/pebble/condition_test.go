package pebble

import (
	"context"
	"testing"

	"github.com/dbrig/dbrig/driver"
)

// Condition before and after Settle: the load, flushed, leaves files in
// L0; settled, every key lies below L0 with no debt and no
// compaction running, and rewriting some keys then settling again gives
// back the same condition.
func TestConditionAfterSettle(t *testing.T) {
	dir := t.TempDir() + "/pb"
	db := open(t, map[string]string{PropDir: dir}).(*DB)
	defer db.Close()
	ctx := context.Background()
	cond := func() map[string]float64 {
		t.Helper()
		c, err := db.Condition(ctx, "usertable")
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]float64{}
		for _, f := range c {
			m[f.Name] = f.Value
			if f.Unit == driver.UnitShare && (f.Value < 0 || f.Value > 1) {
				t.Errorf("%s = %g: a share lies in 0…1", f.Name, f.Value)
			}
		}
		return m
	}
	settle := func() {
		t.Helper()
		if err := db.Settle(ctx, "usertable"); err != nil {
			t.Fatal(err)
		}
	}
	loadHashed(t, db, 20000)
	if err := db.db.Flush(); err != nil {
		t.Fatal(err)
	}
	if c := cond(); c["l0_files"] == 0 || c["l0_share"] == 0 {
		t.Errorf("after the load and a flush: %v; want files in L0", c)
	}
	settle()
	first := cond()
	if first["l0_files"] != 0 || first["l0_share"] != 0 || first["compaction_debt_share"] != 0 || first["compactions_running"] != 0 || first["sstable_bytes"] < 20000*1000 {
		t.Fatalf("settled: %v; want no L0 file, no debt, nothing running, the data in sstables", first)
	}
	loadHashed(t, db, 2000) // rewrites some keys, as an experiment and a repair do
	settle()
	again := cond()
	if d := again["sstable_bytes"]/first["sstable_bytes"] - 1; d < -0.02 || d > 0.02 || again["l0_files"] != 0 {
		t.Errorf("settled after rewriting 10 %% of the keys: %v, first %v; want the same condition", again, first)
	}
}

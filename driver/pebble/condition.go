package pebble

import (
	"context"

	"github.com/dbrig/dbrig/driver"
)

var _ driver.Conditioner = (*DB)(nil)

// Condition measures what Pebble's capacity follows besides its keys: the
// bytes in sstables (older versions and tombstones not yet compacted
// away), L0's share of them and its files and sublevels (a read may look
// into each), the compaction debt (bytes Pebble still has to rewrite, as a
// share of the sstables) and the compactions running.
// After Settle the keys lie in the bottom level and the debt is 0. The
// figures are the whole store's: every table shares one key space.
func (d *DB) Condition(ctx context.Context, table string) (driver.Condition, error) {
	if err := d.begin(ctx, table); err != nil {
		return nil, err
	}
	defer d.end()
	m := d.db.Metrics()
	var sst float64
	for _, l := range m.Levels {
		sst += float64(l.Size)
	}
	debt, l0 := 0.0, 0.0
	if sst > 0 {
		debt, l0 = float64(m.Compact.EstimatedDebt)/sst, float64(m.Levels[0].Size)/sst
	}
	// Not here: the bytes on disk (they hold WAL files and obsolete
	// sstables awaiting deletion) and the number of sstables (a full
	// compaction cuts the same keys into 9 or 11 files): they move without
	// the store's capacity moving.
	return driver.Condition{
		{Name: "sstable_bytes", Value: sst, Unit: "bytes"},
		{Name: "compaction_debt_share", Value: debt, Unit: driver.UnitShare},
		{Name: "l0_share", Value: l0, Unit: driver.UnitShare},
		{Name: "l0_files", Value: float64(m.Levels[0].NumFiles), Unit: "files"},
		{Name: "l0_sublevels", Value: float64(m.Levels[0].Sublevels), Unit: "files"},
		{Name: "compactions_running", Value: float64(m.Compact.NumInProgress), Unit: "compactions"},
	}, nil
}

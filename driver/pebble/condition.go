package pebble

import (
	"context"

	"github.com/dbrig/dbrig/driver"
)

var _ driver.Conditioner = (*DB)(nil)

// Condition measures what Pebble's capacity follows besides its keys: the
// bytes on disk and in sstables (older versions and tombstones not yet
// compacted away), the files a read may look into (L0's files and
// sublevels, every level's), the compaction debt (bytes Pebble still has
// to rewrite, as a share of the sstables) and the compactions running.
// After Settle the keys lie in the bottom level and the debt is 0. The
// figures are the whole store's: every table shares one key space.
func (d *DB) Condition(ctx context.Context, table string) (driver.Condition, error) {
	if err := d.begin(ctx, table); err != nil {
		return nil, err
	}
	defer d.end()
	m := d.db.Metrics()
	var sst, files float64
	for _, l := range m.Levels {
		sst += float64(l.Size)
		files += float64(l.NumFiles)
	}
	debt := 0.0
	if sst > 0 {
		debt = float64(m.Compact.EstimatedDebt) / sst
	}
	return driver.Condition{
		{Name: "sstable_bytes", Value: sst, Unit: "bytes"},
		{Name: "disk_bytes", Value: float64(m.DiskSpaceUsage()), Unit: "bytes"},
		{Name: "compaction_debt_share", Value: debt, Unit: driver.UnitShare},
		{Name: "l0_files", Value: float64(m.Levels[0].NumFiles), Unit: "files"},
		{Name: "l0_sublevels", Value: float64(m.Levels[0].Sublevels), Unit: "files"},
		{Name: "sstables", Value: files, Unit: "files"},
		{Name: "compactions_running", Value: float64(m.Compact.NumInProgress), Unit: "compactions"},
		{Name: "memtable_bytes", Value: float64(m.MemTable.Size), Unit: "bytes"},
	}, nil
}

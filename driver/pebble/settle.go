package pebble

import (
	"context"
	"fmt"
	"time"

	"github.com/dbrig/dbrig/driver"
)

var _ driver.Settler = (*DB)(nil)

// How Settle waits: Pebble schedules a compaction as soon as a flush ends,
// so a few quiet polls in a row mean nothing more is coming.
const (
	settlePoll  = 50 * time.Millisecond
	settleQuiet = 4 // polls without a flush or compaction
	// settleL0 is Pebble's default L0CompactionThreshold: with more
	// sublevels a compaction is due, and a read looks into each of them.
	settleL0    = 4
	settleBound = 2 * time.Minute
)

// Settle flushes the memtable (else the next Open replays the WAL and
// flushes it inside the experiment), compacts the whole key space into the
// bottom level, and waits until no flush or compaction runs and L0 holds at
// most settleL0 sublevels. After a load of 100,000 hashed keys Pebble
// compacts for about a second; an experiment that starts then measures that
// compaction.
//
// Why the full compaction: waiting alone leaves the layout the resets
// before shaped (files and levels holding the restored keys' older
// versions), and a rating's later experiments then read another store
// than its first ones. Measured here (100,000 records, p95<10ms, two
// snapshot ratings back to back, the second on the first's restored data):
// without it the same 36,000 ops/s step had p95 9.3/9.5 ms in the first
// rating and 12–18 ms in the second (answers 36,000 and 32,000).
func (d *DB) Settle(ctx context.Context, table string) error {
	if err := d.begin(ctx, table); err != nil {
		return err
	}
	defer d.end()
	if err := d.db.Flush(); err != nil {
		return wrap("settle: flush", err)
	}
	if err := d.compactAll(); err != nil {
		return err
	}
	deadline := time.Now().Add(settleBound)
	quiet := 0
	for {
		m := d.db.Metrics()
		busy := m.Compact.NumInProgress > 0 || m.Flush.NumInProgress > 0 || m.Levels[0].Sublevels > settleL0
		if busy {
			quiet = 0
		} else if quiet++; quiet >= settleQuiet {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pebble: settle: after %v, %d compactions run and L0 has %d sublevels: %w",
				settleBound, m.Compact.NumInProgress, m.Levels[0].Sublevels, driver.ErrNotSettled)
		}
		select {
		case <-ctx.Done():
			return classifyCtx(ctx.Err())
		case <-time.After(settlePoll):
		}
	}
}

// compactAll rewrites every key into the bottom level (a manual
// compaction over the first to the last key), so each settled store has
// the same layout whatever was written and restored before.
func (d *DB) compactAll() error {
	it, err := d.db.NewIter(nil)
	if err != nil {
		return wrap("settle: iterate", err)
	}
	if !it.First() { // empty: nothing to compact
		if err := it.Close(); err != nil {
			return wrap("settle: iterate", err)
		}
		return nil
	}
	first := append([]byte(nil), it.Key()...)
	it.Last()
	end := append(append([]byte(nil), it.Key()...), 0) // just past the last key
	if err := it.Close(); err != nil {
		return wrap("settle: iterate", err)
	}
	if err := d.db.Compact(first, end, true); err != nil {
		return wrap("settle: compact", err)
	}
	return nil
}

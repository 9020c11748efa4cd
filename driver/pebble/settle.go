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
// flushes it inside the experiment) and waits until no flush or compaction
// runs and L0 holds at most settleL0 sublevels. After a load of 100,000
// hashed keys Pebble compacts for about a second; an experiment that starts
// then measures that compaction.
func (d *DB) Settle(ctx context.Context, table string) error {
	if err := d.begin(ctx, table); err != nil {
		return err
	}
	defer d.end()
	if err := d.db.Flush(); err != nil {
		return wrap("settle: flush", err)
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

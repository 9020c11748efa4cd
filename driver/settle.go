package driver

import (
	"context"
	"errors"
)

// Settler is a DB that can wait for the background work a load or a reset
// started: an LSM's flushes and compactions, a server's vacuum and
// checkpoint. `dbrig rate` calls it after the first load and after each
// reset, so that an experiment measures the store, not the tail of the
// work the previous one left (a compaction landing in one step and not in
// another made two ratings of the same store disagree).
//
// No operation may run on the DB while Settle runs. The DB may be a fresh
// one opened only for this (each experiment opens its own).
type Settler interface {
	// Settle returns when the store has finished the background work that
	// the last load or reset of table started, and did what makes the next
	// reads and writes cost what they will in steady state (flush, vacuum).
	// It is bounded: work still running after its bound is ErrNotSettled.
	Settle(ctx context.Context, table string) error
}

// ErrNotSettled: Settle gave up waiting; the store still works in the
// background. A caller may go on (and say so).
var ErrNotSettled = errors.New("background work still running")

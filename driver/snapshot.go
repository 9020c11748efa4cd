package driver

import "context"

// Snapshotter is a DB that can keep an image of a table's benchmark data
// and put it back, through the system's own mechanism where it has one (a
// Pebble checkpoint, a copy of the SQLite file, a server-side copy of the
// table or keyspace). `dbrig rate --reset snapshot` takes one image after
// the first load and restores it before each later experiment, instead of
// loading again.
//
// An image is named and outlives the DB value (and the process, where the
// system keeps it on disk or on the server), so a later Open can restore it.
// No operation may run on the DB while Snapshot or Restore runs.
type Snapshotter interface {
	// Snapshot takes image name of table, replacing an earlier one.
	Snapshot(ctx context.Context, table, name string) error
	// Restore makes table exactly what it was when image name was taken:
	// records written since are put back, inserted ones removed.
	Restore(ctx context.Context, table, name string) error
	// DropSnapshot removes image name; no image of that name is no error.
	DropSnapshot(ctx context.Context, table, name string) error
}

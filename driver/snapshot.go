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

// KeyRestorer is a Snapshotter that can put back only some records of an
// image: what an experiment wrote, which dbrig records. A rating with
// `--reset snapshot` then restores in the time of the records written, not
// of the whole table.
type KeyRestorer interface {
	// RestoreKeys makes the records keys of table what they were in image
	// name: a key in the image gets its record back, a key not in it is
	// removed. Other records are not touched.
	RestoreKeys(ctx context.Context, table, name string, keys []string) error
}

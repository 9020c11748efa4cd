// Package null is a driver that does nothing: every call returns at once. It
// measures the harness's own ceiling (scheduling, recording) with no store in
// the way, so its methods must not allocate.
package null

import (
	"context"

	"github.com/dbrig/dbrig/driver"
)

// Version is what ServerVersion reports.
const Version = "null"

// DB discards every write and reads empty records.
type DB struct{}

var (
	_ driver.DB            = DB{}
	_ driver.BatchInserter = DB{}
	_ driver.Resetter      = DB{}
	_ driver.Versioner     = DB{}
	_ driver.Describer     = DB{}
)

// Open returns a null DB. It reads no properties.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) { return DB{}, nil }

// Read returns an empty (nil) record: nil maps read as empty and cost nothing.
func (DB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	return nil, nil
}

// Scan returns no records.
func (DB) Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]driver.Record, error) {
	return nil, nil
}

// Update discards values.
func (DB) Update(ctx context.Context, table, key string, values driver.Record) error { return nil }

// Insert discards values.
func (DB) Insert(ctx context.Context, table, key string, values driver.Record) error { return nil }

// Delete does nothing.
func (DB) Delete(ctx context.Context, table, key string) error { return nil }

// InsertBatch discards the batch.
func (DB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	return nil
}

// Reset does nothing: there is no data.
func (DB) Reset(ctx context.Context) error { return nil }

// ServerVersion reports Version.
func (DB) ServerVersion(ctx context.Context) (string, error) { return Version, nil }

// Target describes the (absent) target.
func (DB) Target() string { return "null" }

// Close does nothing.
func (DB) Close() error { return nil }

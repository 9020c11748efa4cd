package stdsql

import "database/sql"

// Pools returns the read and write pools this DB was opened with, for a
// driver's other capabilities (driver.SQL) to share them.
func (db *DB) Pools() (reads, writes *sql.DB) { return db.c.Reads, db.c.Writes }

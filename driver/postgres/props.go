package postgres

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the postgres driver with the properties Open reads.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), EnvProps: []string{"pg.url"}, Open: Open, Clusters: map[string]driver.ClusterFunc{"postgres": newCluster}, Leader: Leader, Doc: "PostgreSQL (github.com/jackc/pgx/v5)",
		// A rating's settle step vacuums between experiments; the
		// autovacuum launcher would land inside some of them (autovacuum.go).
		RatingProps: []string{"pg.autovacuum=off"}, Props: []spec.Decl{
			{Key: "pg.url", Type: "url", Doc: "connection URL or key=value string (required), e.g. postgres://user:secret@127.0.0.1:5432/db?sslmode=disable", Secret: spec.RedactConnInfo},
			{Key: "pg.read_url", Type: "url", Doc: "connection URL that reads (READ, SCAN) go to, e.g. a streaming replica's (default: pg.url); writes go to pg.url", Secret: spec.RedactConnInfo},
			{Key: "pg.timeout", Type: "duration", Default: "10s", Doc: "per-operation timeout (0 = none), on the connection's socket; a wait for a free connection (poolsize < clients) is not bounded by it"},
			{Key: "pg.poolsize", Type: "int", Default: "max(threadcount, 4)", Doc: "connections"},
			{Key: "pg.batch", Type: "string", Default: "copy", Doc: "bulk-load method: copy (COPY FROM STDIN) or insert (multi-row INSERT)"},
			{Key: "pg.timeseries", Type: "string", Default: "records", Doc: "how the time-series workloads keep points: records (rows of the table, as on any key-value store) or table (a time-series layout T_series, T_points with an index on (series, time), queried natively)"},
			{Key: "pg.autovacuum", Type: "string", Default: "on", Doc: "the table's autovacuum: on (the server's) or off (its storage parameter autovacuum_enabled=false); dbrig rate sets off unless given: it vacuums between experiments, so short ones agree"},
		}}
}

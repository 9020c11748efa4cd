package influxdb

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the influxdb driver with the properties Open reads.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), EnvProps: []string{"influxdb.url"}, Open: Open, Clusters: map[string]driver.ClusterFunc{"influxdb": newCluster},
		Doc: "InfluxDB 1.x (line protocol and InfluxQL over HTTP, net/http)", Props: []spec.Decl{
			{Key: "influxdb.url", Type: "url", Default: "http://127.0.0.1:8086", Doc: "the server's HTTP API"},
			{Key: "influxdb.db", Type: "string", Default: "dbrig", Doc: "database (created by Open; Reset drops and recreates it)"},
			{Key: "influxdb.rp", Type: "string", Doc: "retention policy written and read (default: the database's default, autogen)"},
			{Key: "influxdb.rp.duration", Type: "string", Doc: "when set, Open creates influxdb.rp (or alters it) with this InfluxQL duration, e.g. 30d or INF"},
			{Key: "influxdb.precision", Type: "string", Default: "auto", Doc: "timestamp unit of the lines written: n, u, ms, s, m, h (coarser truncates), or auto: per request the coarsest that keeps every time exact"},
			{Key: "influxdb.batchsize", Type: "int", Default: "10000", Doc: "points per HTTP write at most (a larger batch is split), 1..1000000"},
			{Key: "influxdb.timeout", Type: "duration", Default: "30s", Doc: "per-request timeout"},
			{Key: "influxdb.poolsize", Type: "int", Default: "max(threadcount, 4)", Doc: "HTTP connections kept open"},
			{Key: "influxdb.username", Type: "string", Doc: "user when auth is enabled"},
			{Key: "influxdb.password", Type: "string", Doc: "password when auth is enabled", Secret: spec.RedactWhole},
		}}
}

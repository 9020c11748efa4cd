package victoriametrics

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the victoriametrics driver with the properties Open reads.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), EnvProps: []string{"victoriametrics.url"}, Open: Open, Clusters: map[string]driver.ClusterFunc{"victoriametrics": newCluster},
		Doc: "VictoriaMetrics single-node (Influx line protocol /write, query API, net/http)", Props: []spec.Decl{
			{Key: "victoriametrics.url", Type: "url", Default: "http://127.0.0.1:8428", Doc: "the server's HTTP API"},
			{Key: "victoriametrics.precision", Type: "string", Default: "auto", Doc: "timestamp unit of the lines written: n, u, ms, s, m, h (VictoriaMetrics keeps milliseconds), or auto: per request the coarsest that keeps every time exact"},
			{Key: "victoriametrics.batchsize", Type: "int", Default: "10000", Doc: "points per HTTP write at most (a larger batch is split), 1..1000000"},
			{Key: "victoriametrics.timeout", Type: "duration", Default: "30s", Doc: "per-request timeout"},
			{Key: "victoriametrics.poolsize", Type: "int", Default: "max(threadcount, 4)", Doc: "HTTP connections kept open"},
		}}
}

package mongodb

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the mongodb driver with the properties Open reads. Its local
// cluster is FerretDB on PostgreSQL (cluster.go): the MongoDB wire
// protocol, not MongoDB's engine.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), EnvProps: []string{"mongodb.url"}, Open: Open, Clusters: map[string]driver.ClusterFunc{"ferretdb": newCluster},
		Doc: "MongoDB wire protocol (go.mongodb.org/mongo-driver/v2); local cluster: FerretDB on PostgreSQL", Props: []spec.Decl{
			{Key: "mongodb.url", Type: "url", Default: defaultURL, Doc: "connection string as YCSB's mongodb binding takes it: database in the path (default ycsb), write concern (w=, journal=) and read preference (readPreference=) in the query", Secret: spec.RedactURL},
			{Key: "mongodb.batchsize", Type: "int", Default: "1000", Doc: "documents per InsertMany when loading; 1 = one insert per document"},
			{Key: "mongodb.upsert", Type: "bool", Default: "false", Doc: "inserts replace with upsert (YCSB's mongodb.upsert), so a key loaded twice is no error"},
			{Key: "mongodb.timeout", Type: "duration", Default: "10s", Doc: "per-operation timeout, also for Open's ping"},
		}}
}

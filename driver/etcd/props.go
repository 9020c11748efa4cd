package etcd

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the etcd driver with the properties Open reads.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), EnvProps: []string{"etcd.endpoints"}, Open: Open, Clusters: map[string]driver.ClusterFunc{"etcd": newCluster}, Leader: Leader, Doc: "etcd (go.etcd.io/etcd/client/v3)", Props: []spec.Decl{
		{Key: "etcd.endpoints", Type: "list", Default: "127.0.0.1:2379", Doc: "comma-separated host:port of the members"},
		{Key: "etcd.prefix", Type: "string", Default: "dbrig/", Doc: "key prefix of all benchmark data; Reset deletes everything under it"},
		{Key: "etcd.timeout", Type: "duration", Default: "5s", Doc: "per-operation timeout"},
		{Key: "etcd.dialtimeout", Type: "duration", Default: "5s", Doc: "connection timeout, also for Open's check"},
		{Key: "etcd.batchsize", Type: "int", Default: "128", Doc: "records per Txn when loading (1..10000)"},
		{Key: "etcd.consistency", Type: "string", Default: "linearizable", Doc: "reads and scans: linearizable (l) or serializable (s)"},
		{Key: "etcd.username", Type: "string", Doc: "user when auth is enabled"},
		{Key: "etcd.password", Type: "string", Doc: "password when auth is enabled", Secret: spec.RedactWhole},
	}}
}

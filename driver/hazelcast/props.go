package hazelcast

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the hazelcast driver with the properties Open reads.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), EnvProps: []string{"hazelcast.addrs", "hazelcast.cluster"}, Open: Open, Clusters: map[string]driver.ClusterFunc{"hazelcast": newCluster}, Doc: "Hazelcast (github.com/hazelcast/hazelcast-go-client)", Props: []spec.Decl{
		{Key: "hazelcast.addrs", Type: "list", Default: "127.0.0.1:5701", Doc: "comma-separated host:port of members"},
		{Key: "hazelcast.cluster", Type: "string", Default: "dbrig", Doc: "cluster name"},
		{Key: "hazelcast.prefix", Type: "string", Default: "dbrig.", Doc: "IMap name prefix; Reset destroys every map that starts with it"},
		{Key: "hazelcast.timeout", Type: "duration", Default: "5s", Doc: "per-operation timeout"},
		{Key: "hazelcast.dialtimeout", Type: "duration", Default: "5s", Doc: "connection timeout, also bounds Open"},
		{Key: "hazelcast.batchsize", Type: "int", Default: "1000", Doc: "entries per PutAll when loading (1..100000)"},
		{Key: "hazelcast.smart", Type: "bool", Default: "true", Doc: "smart routing (false: unisocket)"},
		{Key: "hazelcast.scan", Type: "string", Default: "none", Doc: "none: Scan is unsupported; index: a sorted index and range predicates"},
		{Key: "hazelcast.username", Type: "string", Doc: "user when security is enabled"},
		{Key: "hazelcast.password", Type: "string", Doc: "password when security is enabled", Secret: spec.RedactWhole},
	}}
}

package redis

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the redis driver with the properties Open reads.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), EnvProps: []string{"redis.addr", "redis.password", "redis.sentinels", "redis.master"}, Open: Open, Clusters: map[string]driver.ClusterFunc{"redis": newCluster}, Leader: Leader, Doc: "Redis (github.com/redis/go-redis/v9, or github.com/redis/rueidis)", Props: []spec.Decl{
		{Key: "redis.addr", Type: "host:port", Default: "127.0.0.1:6379", Doc: "the server"},
		{Key: "redis.read_addr", Type: "host:port", Doc: "a replica the reads (read, scan) go to; writes go to redis.addr (or the Sentinel primary); same password and database. Its reads may be stale (asynchronous replication)"},
		{Key: "redis.password", Type: "string", Doc: "password (AUTH)", Secret: spec.RedactWhole},
		{Key: "redis.db", Type: "int", Default: "0", Doc: "database number"},
		{Key: "redis.timeout", Type: "duration", Default: "2s", Doc: "bound of one operation, retries included"},
		{Key: "redis.poolsize", Type: "int", Default: "threadcount, at least 10 per CPU", Doc: "connections in the pool"},
		{Key: "redis.sentinels", Type: "host:port,…", Doc: "Sentinel addresses: the driver asks them for the primary and follows a failover (go-redis's failover client); redis.addr is then not used"},
		{Key: "redis.master", Type: "string", Default: DefaultMaster, Doc: "the name Sentinel monitors the primary under (with redis.sentinels)"},
		{Key: "redis.update", Type: "checked|hset", Default: "checked", Doc: "update: checked = one EVALSHA of a Lua EXISTS+HSET, a missing key is not_found and never created (YCSB's semantics); hset = a plain HSET, one round trip without a script, creates a missing key holding only the updated fields, outside the scan index (YCSB's Java binding, go-ycsb)"},
		{Key: "redis.client", Type: "go-redis|rueidis", Default: "go-redis", Doc: "client library: go-redis = a pool of connections, one command in flight on each; rueidis = automatic pipelining of concurrent clients' commands on shared connections (less client CPU per operation with many clients). Same commands, layout and semantics"},
	}}
}

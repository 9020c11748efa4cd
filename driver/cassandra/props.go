package cassandra

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Driver is the cassandra driver with the properties Open reads. The
// connection properties carry the names of YCSB's cassandra-cql binding, so
// a YCSB user's property file works as it is.
func Driver() driver.Driver {
	return driver.Driver{Type: (*DB)(nil), EnvProps: []string{"hosts", "cassandra.replicationfactor"}, Open: Open, Clusters: map[string]driver.ClusterFunc{"cassandra": newCluster},
		Doc: "Apache Cassandra (github.com/apache/cassandra-gocql-driver/v2)", Props: []spec.Decl{
			{Key: "hosts", Type: "list", Default: "127.0.0.1", Doc: "comma-separated contact points, host or host:port (YCSB cassandra-cql)"},
			{Key: "port", Type: "int", Default: "9042", Doc: "native protocol port of hosts given without one (YCSB cassandra-cql)"},
			{Key: "cassandra.keyspace", Type: "string", Default: "ycsb", Doc: "keyspace of the tables; created when absent"},
			{Key: "cassandra.readconsistencylevel", Type: "string", Default: "cassandra.consistencylevel", Doc: "consistency of reads and scans: " + levelNames},
			{Key: "cassandra.writeconsistencylevel", Type: "string", Default: "cassandra.consistencylevel", Doc: "consistency of inserts, updates and deletes: " + levelNames},
			{Key: "cassandra.consistencylevel", Type: "string", Default: "QUORUM", Doc: "consistency of both reads and writes unless one is given (one matrix axis for both)"},
			{Key: "cassandra.username", Type: "string", Doc: "user when authentication is enabled"},
			{Key: "cassandra.password", Type: "string", Doc: "password when authentication is enabled", Secret: spec.RedactWhole},
			{Key: "cassandra.maxconnections", Type: "int", Default: "2", Doc: "connections per host"},
			{Key: "cassandra.connecttimeoutmillis", Type: "int", Default: "5000", Doc: "connection timeout in ms, also bounds Open"},
			{Key: "cassandra.readtimeoutmillis", Type: "int", Default: "12000", Doc: "per-request timeout in ms (the server's own timeouts are shorter)"},
			{Key: "cassandra.replicationfactor", Type: "int", Default: "1", Doc: "replication factor of a keyspace the driver creates (SimpleStrategy); at most the number of nodes"},
			{Key: "cassandra.scan", Type: "string", Default: "token", Doc: "token: YCSB's scan, token(y_id) >= token(start), records in token order, not key order; none: Scan is unsupported"},
			{Key: "cassandra.ifexists", Type: "bool", Default: "false", Doc: "Update and Delete with IF EXISTS (a lightweight transaction) so a missing key is not found; false: blind writes as YCSB's"},
			{Key: "cassandra.discover", Type: "bool", Default: "true", Doc: "learn the other nodes from the ring and route to them; false: use only hosts (behind a proxy or load balancer)"},
			{Key: "cassandra.loadinflight", Type: "int", Default: "32", Doc: "requests (batches or inserts) in flight at once during the load, all loaders together (each routed to its replicas)"},
			{Key: "cassandra.loadbatch", Type: "int", Default: "4", Doc: "records per UNLOGGED batch during the load (1 to 100), all of one replica set, kept under 4.5 KiB of keys and values (Cassandra warns above 5 KiB); 1: one insert per record"},
		}}
}

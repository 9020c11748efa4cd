package all

// YCSBBindings maps YCSB's db= binding classes to the driver that drives
// the same system the same way (db=site.ycsb.db.RedisClient in a YCSB
// property file). A class not here has no dbrig driver: experiment refuses
// it rather than benchmark another system.
func YCSBBindings() map[string]string {
	return map[string]string{
		"site.ycsb.db.RedisClient":        "redis",
		"com.yahoo.ycsb.db.RedisClient":   "redis",
		"site.ycsb.BasicDB":               Null,
		"com.yahoo.ycsb.BasicDB":          Null,
		"site.ycsb.db.HazelcastClient":    "hazelcast",
		"site.ycsb.db.etcd.EtcdClient":    "etcd",
		"site.ycsb.db.PostgreNoSQLClient": "postgres",
	}
}

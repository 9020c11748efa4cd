package cluster

import "fmt"

// Describe says what a local cluster of recipe r will be (dbrig bench
// --dry-run).
func Describe(r Recipe) string {
	switch r := r.(type) {
	case Etcd:
		n := r.Members
		if n == 0 {
			n = 3 // the recipe's default
		}
		return fmt.Sprintf("etcd × %d", n)
	case Redis:
		return fmt.Sprintf("redis primary + %d replicas + %d sentinels", r.Replicas, r.Sentinels)
	case Postgres:
		return fmt.Sprintf("postgres primary + %d streaming replicas", r.Replicas)
	case MariaDB:
		return "mariadb, one server"
	case Hazelcast:
		n := r.Members
		if n == 0 {
			n = 3
		}
		return fmt.Sprintf("hazelcast × %d members", n)
	}
	return r.System()
}

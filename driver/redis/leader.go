package redis

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbrig/dbrig/driver"
)

// Leader implements driver.LeaderFunc: it asks the Redis server at
// redis.addr for its role (INFO replication): a master is the primary
// itself; a replica names its master (master_host, master_port).
func Leader(ctx context.Context, props map[string]string) (driver.Member, error) {
	addr := cmp.Or(props["redis.addr"], "127.0.0.1:6379")
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c := goredis.NewClient(&goredis.Options{Addr: addr, Password: props["redis.password"], DialTimeout: 5 * time.Second})
	defer c.Close()
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return driver.Member{}, fmt.Errorf("redis at %s: INFO replication: %w", addr, err)
	}
	return roleOf(addr, info)
}

// roleOf reads INFO replication's answer.
func roleOf(addr, info string) (driver.Member, error) {
	kv := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			kv[k] = v
		}
	}
	switch kv["role"] {
	case "master":
		return driver.Member{Name: "primary at " + addr, Addrs: []string{addr}}, nil
	case "slave":
		if kv["master_host"] == "" {
			return driver.Member{}, fmt.Errorf("redis at %s is a replica that names no master", addr)
		}
		m := net.JoinHostPort(kv["master_host"], kv["master_port"])
		return driver.Member{Name: "primary at " + m, Addrs: []string{m}}, nil
	}
	return driver.Member{}, fmt.Errorf("redis at %s: role %q", addr, kv["role"])
}

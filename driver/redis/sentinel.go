package redis

import (
	"net"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbrig/dbrig/spec"
)

// DefaultMaster is the name Sentinel monitors the primary under when
// redis.master is not given (the name of Redis's own sentinel.conf and of
// dbrig's redis recipe).
const DefaultMaster = "mymaster"

// sentinels reads redis.sentinels (host:port,…) and redis.master: nil when
// no sentinels are given (the driver then talks to redis.addr only).
func sentinels(p *spec.Props) (addrs []string, master string, err error) {
	v := strings.TrimSpace(p.String("redis.sentinels", ""))
	master = strings.TrimSpace(p.String("redis.master", DefaultMaster))
	if v == "" {
		return nil, master, nil
	}
	for _, a := range strings.Split(v, ",") {
		a = strings.TrimSpace(a)
		if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
			return nil, "", p.Errorf("redis.sentinels", "host:port,… (Sentinel addresses, comma-separated)")
		}
		addrs = append(addrs, a)
	}
	if master == "" {
		return nil, "", p.Errorf("redis.master", "the name Sentinel monitors the primary under")
	}
	return addrs, master, nil
}

// failoverClient is a client that asks the sentinels for the primary and
// follows a failover: when Sentinel promotes a replica (+switch-master) the
// pool drops its connections to the old primary and dials the new one, so
// a run keeps going after the primary dies. Every other option is o's.
func failoverClient(o *goredis.Options, addrs []string, master string) *goredis.Client {
	return goredis.NewFailoverClient(&goredis.FailoverOptions{
		MasterName:    master,
		SentinelAddrs: addrs,
		Password:      o.Password,
		DB:            o.DB,
		PoolSize:      o.PoolSize,

		ContextTimeoutEnabled: o.ContextTimeoutEnabled,
		DialTimeout:           o.DialTimeout,
		ReadTimeout:           o.ReadTimeout,
		WriteTimeout:          o.WriteTimeout,
		PoolTimeout:           o.PoolTimeout,
		DisableIdentity:       o.DisableIdentity,
	})
}

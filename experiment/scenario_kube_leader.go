package experiment

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/dbrig/dbrig/inject/kube"
)

// A Kubernetes fault's target leader is the pod of the member the system
// itself names as its leader, asked through the driver's address when the
// fault fires (kube.PodOf maps the member to a pod by name, IP or DNS name).

// leaderDrivers are the drivers leaderFinder can ask.
func leaderDrivers() []string { return []string{"etcd", "postgres", "redis"} }

// leaderFinder asks a system for its leader, through the driver's
// properties (nil: dbrig cannot ask this one).
func leaderFinder(driver string) func(ctx context.Context, props map[string]string) (kube.Member, error) {
	switch driver {
	case "etcd":
		return etcdLeader
	case "postgres":
		return postgresPrimary
	case "redis":
		return redisPrimary
	}
	return nil
}

// etcdLeader asks etcd's maintenance API (Status) of the driver's
// endpoints which member leads, and the member list for its name and URLs.
func etcdLeader(ctx context.Context, props map[string]string) (kube.Member, error) {
	var eps []string
	for _, ep := range strings.Split(cmpOr(props["etcd.endpoints"], "127.0.0.1:2379"), ",") {
		if ep = strings.TrimSpace(ep); ep != "" {
			eps = append(eps, ep)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second, Context: ctx, Logger: zap.NewNop(),
		Username: props["etcd.username"], Password: props["etcd.password"]})
	if err != nil {
		return kube.Member{}, fmt.Errorf("etcd at %s: %w", strings.Join(eps, ","), err)
	}
	defer cli.Close()
	var leader uint64
	var errs []string
	for _, ep := range eps {
		st, err := cli.Status(ctx, ep)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", ep, err))
			continue
		}
		if st.Leader != 0 {
			leader = st.Leader
			break
		}
		errs = append(errs, ep+": no leader")
	}
	if leader == 0 {
		return kube.Member{}, fmt.Errorf("etcd has no leader now (%s)", strings.Join(errs, "; "))
	}
	ml, err := cli.MemberList(ctx)
	if err != nil {
		return kube.Member{}, fmt.Errorf("etcd member list: %w", err)
	}
	for _, m := range ml.Members {
		if m.ID == leader {
			return kube.Member{Name: m.Name, Addrs: append(append([]string{}, m.PeerURLs...), m.ClientURLs...)}, nil
		}
	}
	return kube.Member{}, fmt.Errorf("etcd leader %x is not in the member list", leader)
}

// redisPrimary asks the Redis server at redis.addr for its role (INFO
// replication): a master is the primary itself; a replica names its
// master (master_host, master_port).
func redisPrimary(ctx context.Context, props map[string]string) (kube.Member, error) {
	addr := cmpOr(props["redis.addr"], "127.0.0.1:6379")
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c := redis.NewClient(&redis.Options{Addr: addr, Password: props["redis.password"], DialTimeout: 5 * time.Second})
	defer c.Close()
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return kube.Member{}, fmt.Errorf("redis at %s: INFO replication: %w", addr, err)
	}
	return redisRole(addr, info)
}

// redisRole reads INFO replication's answer.
func redisRole(addr, info string) (kube.Member, error) {
	kv := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			kv[k] = v
		}
	}
	switch kv["role"] {
	case "master":
		return kube.Member{Name: "primary at " + addr, Addrs: []string{addr}}, nil
	case "slave":
		if kv["master_host"] == "" {
			return kube.Member{}, fmt.Errorf("redis at %s is a replica that names no master", addr)
		}
		m := net.JoinHostPort(kv["master_host"], kv["master_port"])
		return kube.Member{Name: "primary at " + m, Addrs: []string{m}}, nil
	}
	return kube.Member{}, fmt.Errorf("redis at %s: role %q", addr, kv["role"])
}

// postgresPrimary asks the PostgreSQL server of pg.url whether it is in
// recovery: if not, it is the primary; a standby names its primary in
// pg_stat_wal_receiver (sender_host, sender_port).
func postgresPrimary(ctx context.Context, props map[string]string) (kube.Member, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(props["pg.url"])
	if err != nil {
		return kube.Member{}, fmt.Errorf("pg.url: %w", err) // pgx's message carries no password
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return kube.Member{}, fmt.Errorf("postgres at %s:%d: %w", cfg.Host, cfg.Port, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var standby bool
	if err := conn.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&standby); err != nil {
		return kube.Member{}, fmt.Errorf("postgres at %s: pg_is_in_recovery: %w", cfg.Host, err)
	}
	at := net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if !standby {
		return kube.Member{Name: "primary at " + at, Addrs: []string{at}}, nil
	}
	var host string
	var port int
	if err := conn.QueryRow(ctx, "SELECT sender_host, sender_port FROM pg_stat_wal_receiver").Scan(&host, &port); err != nil {
		return kube.Member{}, fmt.Errorf("postgres at %s is a standby; its primary (pg_stat_wal_receiver): %w", at, err)
	}
	m := net.JoinHostPort(host, strconv.Itoa(port))
	return kube.Member{Name: "primary at " + m, Addrs: []string{m}}, nil
}

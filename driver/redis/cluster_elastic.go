package redis

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbrig/dbrig/cluster"
)

// GrowRoles implements Elastic: Redis adds replicas.
func (Cluster) GrowRoles() []string { return []string{"replica"} }

// Grow implements Elastic: a replica of the primary now (the one the
// sentinels name, after a failover; else the node started as primary),
// configured like the others; ready when its link to the primary is up.
func (r Cluster) Grow(l *cluster.Layout, live []cluster.Node, role, name string) (*cluster.NodeSpec, error) {
	if role != "replica" {
		return nil, fmt.Errorf("redis adds replicas, not %ss", role)
	}
	var server *cluster.Node
	var sentinels []string
	for i, n := range live {
		switch n.Role {
		case "primary", "replica":
			if server == nil || n.Role == "primary" {
				server = &live[i]
			}
		case "sentinel":
			sentinels = append(sentinels, n.Addr)
		}
	}
	if server == nil {
		return nil, fmt.Errorf("no live Redis server to copy the binary from")
	}
	primary := ""
	for _, n := range live {
		if n.Role == "primary" {
			primary = n.Addr
		}
	}
	port, err := l.Port(name, "client")
	if err != nil {
		return nil, err
	}
	dir := l.NodeDir(name)
	conf := filepath.Join(dir, "redis.conf")
	lines := []string{"bind " + cluster.Loopback, "port " + strconv.Itoa(port), "protected-mode yes",
		"daemonize no", "dir " + dir, `logfile ""`, `save ""`, "appendonly no"}
	if r.Password != "" {
		lines = append(lines, "requirepass "+redisConfQuote(r.Password), "masterauth "+redisConfQuote(r.Password))
	}
	lines = append(lines, r.Config...)
	ns := &cluster.NodeSpec{
		Name: name, Role: "replica", Binary: server.Binary, Version: server.Version,
		Args: []string{conf}, DataDir: dir, Log: l.LogPath(name),
		Ports: map[string]int{"client": port}, URL: "redis://" + cluster.HostPort(port),
		Files: map[string]string{conf: strings.Join(lines, "\n") + "\n"},
	}
	ns.Setup = func(ctx context.Context, _ cluster.RunFunc) error {
		addr := primary
		if len(sentinels) > 0 {
			c := goredis.NewSentinelClient(&goredis.Options{Addr: sentinels[0], MaxRetries: -1, PoolSize: 1})
			hp, err := c.GetMasterAddrByName(ctx, r.master()).Result()
			c.Close()
			if err == nil && len(hp) == 2 {
				addr = hp[0] + ":" + hp[1]
			}
		}
		host, p, ok := strings.Cut(addr, ":")
		if !ok {
			return fmt.Errorf("no primary to replicate (sentinels: %v)", sentinels)
		}
		ns.Args = append(ns.Args, "--replicaof", host, p)
		return nil
	}
	ns.Ready = func(ctx context.Context) error { return redisReplicaUp(ctx, port, r.Password) }
	return ns, nil
}

// Shrink implements Elastic: a replica leaves by stopping (the sentinels
// then list it as down).
func (Cluster) Shrink(context.Context, []cluster.Node, cluster.Node) error { return nil }

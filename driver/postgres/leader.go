package postgres

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/driver"
)

// Leader implements driver.LeaderFunc: it asks the PostgreSQL server of
// pg.url whether it is in recovery: if not, it is the primary; a standby
// names its primary in pg_stat_wal_receiver (sender_host, sender_port).
func Leader(ctx context.Context, props map[string]string) (driver.Member, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(props["pg.url"])
	if err != nil {
		return driver.Member{}, fmt.Errorf("pg.url: %w", err) // pgx's message carries no password
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return driver.Member{}, fmt.Errorf("postgres at %s:%d: %w", cfg.Host, cfg.Port, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var standby bool
	if err := conn.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&standby); err != nil {
		return driver.Member{}, fmt.Errorf("postgres at %s: pg_is_in_recovery: %w", cfg.Host, err)
	}
	at := net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if !standby {
		return driver.Member{Name: "primary at " + at, Addrs: []string{at}}, nil
	}
	var host string
	var port int
	if err := conn.QueryRow(ctx, "SELECT sender_host, sender_port FROM pg_stat_wal_receiver").Scan(&host, &port); err != nil {
		return driver.Member{}, fmt.Errorf("postgres at %s is a standby; its primary (pg_stat_wal_receiver): %w", at, err)
	}
	m := net.JoinHostPort(host, strconv.Itoa(port))
	return driver.Member{Name: "primary at " + m, Addrs: []string{m}}, nil
}

package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/cluster"
)

// Gauges implements cluster.Gauger: each replica's replication lag
// (cluster.GaugeReplayLag: the primary's WAL position minus the replica's
// replay position, 0 when it has replayed everything), so analysis can
// tell how far a cut replica fell behind and when it caught up after the
// heal. nil without replicas.
func (Cluster) Gauges(nodes []cluster.Node) cluster.GaugeSampler {
	s := &lagSampler{conns: map[string]*pgx.Conn{}}
	for _, n := range nodes {
		switch {
		case n.System != (Cluster{}).System():
		case n.Role == "primary":
			s.primary = n
		case n.Role == "replica":
			s.replicas = append(s.replicas, n)
		}
	}
	if s.primary.URL == "" || len(s.replicas) == 0 {
		return nil
	}
	return s
}

// lagSampler keeps a connection per server, opened again after a server
// did not answer (killed, cut off).
type lagSampler struct {
	primary  cluster.Node
	replicas []cluster.Node
	conns    map[string]*pgx.Conn
}

// lsn asks one server for a position in bytes; nil: no answer.
func (s *lagSampler) lsn(ctx context.Context, timeout time.Duration, n cluster.Node, q string) *int64 {
	qctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := s.conns[n.Name]
	if c == nil {
		var err error
		if c, err = pgx.Connect(qctx, n.URL); err != nil {
			return nil
		}
		s.conns[n.Name] = c
	}
	var v int64
	if err := c.QueryRow(qctx, q).Scan(&v); err != nil {
		c.Close(context.Background())
		delete(s.conns, n.Name)
		return nil
	}
	return &v
}

// Sample reads every replica's lag once.
func (s *lagSampler) Sample(ctx context.Context, timeout time.Duration) []cluster.Gauge {
	// Replicas first: a replica's position is then never ahead of the
	// primary's read after it.
	replayed := map[string]int64{}
	for _, r := range s.replicas {
		if v := s.lsn(ctx, timeout, r, "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint"); v != nil {
			replayed[r.Name] = *v
		}
	}
	p := s.lsn(ctx, timeout, s.primary, "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")
	if p == nil {
		return nil
	}
	now := time.Now()
	var gs []cluster.Gauge
	for _, r := range s.replicas {
		if v, ok := replayed[r.Name]; ok {
			gs = append(gs, cluster.Gauge{Node: r.Name, Name: cluster.GaugeReplayLag, Time: now, Value: float64(max(*p-v, 0))})
		}
	}
	return gs
}

// Close closes the connections.
func (s *lagSampler) Close() {
	for _, c := range s.conns {
		c.Close(context.Background())
	}
}

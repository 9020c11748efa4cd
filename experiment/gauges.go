package experiment

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/results"
)

// A run with faults on a PostgreSQL primary and replicas samples each
// replica's replication lag every gaugeEvery (results.Gauge
// replay_lag_bytes: the primary's WAL position minus the replica's replay
// position, 0 when it has replayed everything), so analysis can tell how
// far a cut replica fell behind and when it caught up after the heal.

const gaugeEvery = 200 * time.Millisecond

// sampleReplication stores the replicas' lag until stopped; a no-op for
// other systems or without replicas. A server that does not answer (killed,
// cut off) gives no sample that time; its connection is opened again.
func sampleReplication(ctx context.Context, store *results.Store, runID int64, nodes []cluster.Node, fail func(error)) (stop func()) {
	var primary cluster.Node
	var replicas []cluster.Node
	for _, n := range nodes {
		switch {
		case n.System != "postgres":
		case n.Role == "primary":
			primary = n
		case n.Role == "replica":
			replicas = append(replicas, n)
		}
	}
	if primary.URL == "" || len(replicas) == 0 {
		return func() {}
	}
	sctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		conns := map[string]*pgx.Conn{}
		defer func() {
			for _, c := range conns {
				c.Close(context.Background())
			}
		}()
		// lsn asks one server for a position in bytes; nil: no answer.
		lsn := func(n cluster.Node, q string) *int64 {
			qctx, qcancel := context.WithTimeout(sctx, gaugeEvery)
			defer qcancel()
			c := conns[n.Name]
			if c == nil {
				var err error
				if c, err = pgx.Connect(qctx, n.URL); err != nil {
					return nil
				}
				conns[n.Name] = c
			}
			var v int64
			if err := c.QueryRow(qctx, q).Scan(&v); err != nil {
				c.Close(context.Background())
				delete(conns, n.Name)
				return nil
			}
			return &v
		}
		tick := time.NewTicker(gaugeEvery)
		defer tick.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-tick.C:
			}
			// Replicas first: a replica's position is then never ahead of
			// the primary's read after it.
			var gs []results.Gauge
			replayed := map[string]int64{}
			for _, r := range replicas {
				if v := lsn(r, "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint"); v != nil {
					replayed[r.Name] = *v
				}
			}
			p := lsn(primary, "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")
			if p == nil {
				continue
			}
			now := time.Now()
			for _, r := range replicas {
				if v, ok := replayed[r.Name]; ok {
					gs = append(gs, results.Gauge{Node: r.Name, Name: results.GaugeReplayLag, Time: now, Value: float64(max(*p-v, 0))})
				}
			}
			if len(gs) > 0 {
				if err := store.AddGauges(context.WithoutCancel(ctx), runID, gs); err != nil {
					fail(fmt.Errorf("store replication lag: %w", err))
				}
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}

package results

import (
	"context"
	"fmt"
	"time"
)

// NodeTraffic is one second of what dbrig's client proxy in front of a
// node forwarded: the share of the run's operations that node served.
type NodeTraffic struct {
	Node      string
	Time      time.Time     // end of the second (written)
	T         time.Duration // since the run's start (read back)
	BytesUp   int64         // dbrig → node over the second
	BytesDown int64         // node → dbrig
	Conns     int64         // connections opened over the second
}

// AddNodeTraffic stores samples as they come.
func (s *Store) AddNodeTraffic(ctx context.Context, runID int64, ts []NodeTraffic) error {
	start, err := s.runStart(ctx, runID)
	if err != nil {
		return fmt.Errorf("add node traffic: %w", err)
	}
	err = s.tx(ctx, func(t *txn) error {
		for _, n := range ts {
			if err := t.exec(ctx, `INSERT INTO node_traffic (run_id, node, t_ms, bytes_up, bytes_down, conns) VALUES (?, ?, ?, ?, ?, ?)`,
				runID, n.Node, n.Time.Sub(start).Milliseconds(), n.BytesUp, n.BytesDown, n.Conns); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add node traffic to run %d: %w", runID, err)
	}
	return nil
}

// NodeTraffic returns a run's per-node traffic in time order.
func (s *Store) NodeTraffic(ctx context.Context, runID int64) ([]NodeTraffic, error) {
	rows, err := s.query(ctx, `SELECT node, t_ms, bytes_up, bytes_down, conns FROM node_traffic WHERE run_id = ? ORDER BY t_ms, node`, runID)
	if err != nil {
		return nil, fmt.Errorf("node traffic of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []NodeTraffic
	for rows.Next() {
		var n NodeTraffic
		var tms int64
		if err := rows.Scan(&n.Node, &tms, &n.BytesUp, &n.BytesDown, &n.Conns); err != nil {
			return nil, err
		}
		n.T = time.Duration(tms) * time.Millisecond
		out = append(out, n)
	}
	return out, rows.Err()
}

// GaugeReplayLag is the gauge of a PostgreSQL replica's replication lag:
// the primary's WAL position minus the replica's replay position, bytes.
const GaugeReplayLag = "replay_lag_bytes"

// Gauge is one sample of a figure of a node (replay_lag_bytes of a
// PostgreSQL replica).
type Gauge struct {
	Node, Name string
	Time       time.Time     // written
	T          time.Duration // since the run's start (read back)
	Value      float64
}

// AddGauges stores samples as they come.
func (s *Store) AddGauges(ctx context.Context, runID int64, gs []Gauge) error {
	start, err := s.runStart(ctx, runID)
	if err != nil {
		return fmt.Errorf("add gauges: %w", err)
	}
	err = s.tx(ctx, func(t *txn) error {
		for _, g := range gs {
			if err := t.exec(ctx, `INSERT INTO node_gauges (run_id, node, t_ms, name, value) VALUES (?, ?, ?, ?, ?)`,
				runID, g.Node, g.Time.Sub(start).Milliseconds(), g.Name, g.Value); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add gauges to run %d: %w", runID, err)
	}
	return nil
}

// Gauges returns a run's gauge samples in time order.
func (s *Store) Gauges(ctx context.Context, runID int64) ([]Gauge, error) {
	rows, err := s.query(ctx, `SELECT node, t_ms, name, value FROM node_gauges WHERE run_id = ? ORDER BY t_ms, node, name`, runID)
	if err != nil {
		return nil, fmt.Errorf("gauges of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []Gauge
	for rows.Next() {
		var g Gauge
		var tms int64
		if err := rows.Scan(&g.Node, &tms, &g.Name, &g.Value); err != nil {
			return nil, err
		}
		g.T = time.Duration(tms) * time.Millisecond
		out = append(out, g)
	}
	return out, rows.Err()
}

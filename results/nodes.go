package results

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Node is one node of the system under test, as stored in nodes.
type Node struct {
	Name, Role, System string
	PID                int
	Ports              map[string]int
	Addr, DataDir, Log string
	Binary, Version    string
}

// Metric is one process sample, as stored in metrics.
type Metric struct {
	Node                  string
	Time                  time.Time
	T                     time.Duration // since the run's start (read back)
	CPUUser, CPUSys       float64       // % of one CPU
	RSS                   uint64
	ReadBytes, WriteBytes uint64 // over the last interval
	CtxSwitches           uint64 // over the last interval
	FDs                   int
	Gone                  bool
}

// AddNodes records what ran where: the nodes of the run's local cluster.
func (s *Store) AddNodes(ctx context.Context, runID int64, nodes []Node) error {
	err := s.tx(ctx, func(t *txn) error {
		for _, n := range nodes {
			ports, err := json.Marshal(n.Ports)
			if err != nil {
				return err
			}
			if err := t.exec(ctx, `INSERT INTO nodes (run_id, name, role, system, pid, ports, addr, data_dir, log, bin_path, version)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				runID, n.Name, n.Role, n.System, n.PID, string(ports), n.Addr, n.DataDir, n.Log, n.Binary, n.Version); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add nodes to run %d: %w", runID, err)
	}
	return nil
}

// AddMetrics stores samples as they come (one transaction per batch), with
// the same durability as intervals.
func (s *Store) AddMetrics(ctx context.Context, runID int64, ms []Metric) error {
	start, err := s.runStart(ctx, runID)
	if err != nil {
		return fmt.Errorf("add metrics: %w", err)
	}
	err = s.tx(ctx, func(t *txn) error {
		for _, m := range ms {
			if err := t.exec(ctx, `INSERT INTO metrics (run_id, node, at, t_ms, cpu_user, cpu_sys, rss_bytes, read_bytes, write_bytes, ctx_switches, fds, gone)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				runID, m.Node, fmtTime(m.Time), m.Time.Sub(start).Milliseconds(), m.CPUUser, m.CPUSys,
				int64(m.RSS), int64(m.ReadBytes), int64(m.WriteBytes), int64(m.CtxSwitches), m.FDs, boolInt(m.Gone)); err != nil {
				return err
			}
		}
		return touch(ctx, t, runID)
	})
	if err != nil {
		return fmt.Errorf("add metrics to run %d: %w", runID, err)
	}
	return nil
}

// Nodes returns the nodes of a run, by name.
func (s *Store) Nodes(ctx context.Context, runID int64) ([]Node, error) {
	rows, err := s.query(ctx, `SELECT name, role, system, pid, ports, addr, data_dir, log, bin_path, version
		FROM nodes WHERE run_id = ? ORDER BY name`, runID)
	if err != nil {
		return nil, fmt.Errorf("nodes of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []Node
	for rows.Next() {
		var n Node
		var ports string
		if err := rows.Scan(&n.Name, &n.Role, &n.System, &n.PID, &ports, &n.Addr, &n.DataDir, &n.Log, &n.Binary, &n.Version); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(ports), &n.Ports); err != nil {
			return nil, fmt.Errorf("node %s ports: %w", n.Name, err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Metrics returns a run's samples in time order.
func (s *Store) Metrics(ctx context.Context, runID int64) ([]Metric, error) {
	rows, err := s.query(ctx, `SELECT node, at, t_ms, cpu_user, cpu_sys, rss_bytes, read_bytes, write_bytes, ctx_switches, fds, gone
		FROM metrics WHERE run_id = ? ORDER BY t_ms, node`, runID)
	if err != nil {
		return nil, fmt.Errorf("metrics of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []Metric
	for rows.Next() {
		var m Metric
		var at string
		var tms, rss, rb, wb, cs int64
		var gone int
		if err := rows.Scan(&m.Node, &at, &tms, &m.CPUUser, &m.CPUSys, &rss, &rb, &wb, &cs, &m.FDs, &gone); err != nil {
			return nil, err
		}
		if m.Time, err = parseTime(at); err != nil {
			return nil, err
		}
		m.T = time.Duration(tms) * time.Millisecond
		m.RSS, m.ReadBytes, m.WriteBytes, m.CtxSwitches, m.Gone = uint64(rss), uint64(rb), uint64(wb), uint64(cs), gone != 0
		out = append(out, m)
	}
	return out, rows.Err()
}

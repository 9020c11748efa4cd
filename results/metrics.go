package results

import (
	"context"
	"fmt"
)

// RunMetric is one headline metric of a run (run_metrics): a figure its
// workload computed from the measure phase, such as TPC-C's tpmC.
type RunMetric struct {
	Name  string
	Value float64
	Unit  string
	Doc   string
}

// AddRunMetrics stores a run's headline metrics, in the order given (a name
// stored again replaces the earlier value).
func (s *Store) AddRunMetrics(ctx context.Context, runID int64, ms []RunMetric) error {
	err := s.tx(ctx, func(t *txn) error {
		for _, m := range ms {
			// A replaced metric keeps its place.
			var ord int64
			if err := t.queryRow(ctx, `SELECT COALESCE(MIN(ord), (SELECT COALESCE(MAX(ord), -1) + 1 FROM run_metrics WHERE run_id = ?))
				FROM run_metrics WHERE run_id = ? AND name = ?`, runID, runID, m.Name).Scan(&ord); err != nil {
				return err
			}
			if err := t.exec(ctx, `DELETE FROM run_metrics WHERE run_id = ? AND name = ?`, runID, m.Name); err != nil {
				return err
			}
			if err := t.exec(ctx, `INSERT INTO run_metrics (run_id, name, value, unit, doc, ord) VALUES (?, ?, ?, ?, ?, ?)`,
				runID, m.Name, m.Value, m.Unit, m.Doc, ord); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add metrics to run %d: %w", runID, err)
	}
	return nil
}

// Metrics returns a run's headline metrics in the order they were stored
// (none for a workload without any).
func (s *Store) RunMetrics(ctx context.Context, runID int64) ([]RunMetric, error) {
	rows, err := s.query(ctx, `SELECT name, value, unit, doc FROM run_metrics WHERE run_id = ? ORDER BY ord, name`, runID)
	if err != nil {
		return nil, fmt.Errorf("metrics of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []RunMetric
	for rows.Next() {
		var m RunMetric
		if err := rows.Scan(&m.Name, &m.Value, &m.Unit, &m.Doc); err != nil {
			return nil, fmt.Errorf("metrics of run %d: %w", runID, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

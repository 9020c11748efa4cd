package results

import (
	"context"
	"fmt"
)

// FaultRuns returns the runs of a system and workload during which faults
// were injected (an event of kind fault or fault_start): the dashboard's
// history shows them apart, as their figures measure the fault.
func (s *Store) FaultRuns(ctx context.Context, system, workload string) (map[int64]bool, error) {
	rows, err := s.query(ctx, `SELECT DISTINCT e.run_id FROM events e JOIN runs r ON r.id = e.run_id
		WHERE r.system = ? AND r.workload = ? AND e.kind IN ('fault', 'fault_start')`, system, workload)
	if err != nil {
		return nil, fmt.Errorf("runs with faults: %w", err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("runs with faults: %w", err)
		}
		out[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runs with faults: %w", err)
	}
	return out, nil
}

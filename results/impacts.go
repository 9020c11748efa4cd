package results

import (
	"context"
	"database/sql"
	"fmt"
)

// Impact is one fault's cost as stored in impacts (see the migration for
// the columns' meaning).
type Impact struct {
	Fault, Target, Outcome                string
	StartMS, EndMS                        int64
	BaselineP50, BaselineP95, BaselineP99 int64
	FaultP50, FaultP95, FaultP99          int64
	AfterP50, AfterP95, AfterP99          int64
	ThroughputChangePct                   float64
	Errors, UnavailableMS                 int64
	RecoveryMS                            *int64 // nil: not recovered
	RecoveryCut                           string // why not: next fault, end of run, never calm ("" when it recovered)
}

// AddImpacts stores what a run's faults cost.
func (s *Store) AddImpacts(ctx context.Context, runID int64, ims []Impact) error {
	err := s.tx(ctx, func(t *txn) error {
		for _, im := range ims {
			var rec sql.NullInt64
			if im.RecoveryMS != nil {
				rec = sql.NullInt64{Int64: *im.RecoveryMS, Valid: true}
			}
			cut := sql.NullString{String: im.RecoveryCut, Valid: im.RecoveryCut != ""}
			if err := t.exec(ctx, `INSERT INTO impacts (run_id, fault, target, outcome, start_ms, end_ms,
				baseline_p50_us, baseline_p95_us, baseline_p99_us, fault_p50_us, fault_p95_us, fault_p99_us,
				after_p50_us, after_p95_us, after_p99_us, throughput_change_pct, errors, unavailable_ms, recovery_ms, recovery_cut)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				runID, im.Fault, redactWords(im.Target), redactWords(im.Outcome), im.StartMS, im.EndMS,
				im.BaselineP50, im.BaselineP95, im.BaselineP99, im.FaultP50, im.FaultP95, im.FaultP99,
				im.AfterP50, im.AfterP95, im.AfterP99, im.ThroughputChangePct, im.Errors, im.UnavailableMS, rec, cut); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add impacts to run %d: %w", runID, err)
	}
	return nil
}

// Impacts returns what a run's faults cost, in the order they fired.
func (s *Store) Impacts(ctx context.Context, runID int64) ([]Impact, error) {
	rows, err := s.query(ctx, `SELECT fault, target, outcome, start_ms, end_ms,
		baseline_p50_us, baseline_p95_us, baseline_p99_us, fault_p50_us, fault_p95_us, fault_p99_us,
		after_p50_us, after_p95_us, after_p99_us, throughput_change_pct, errors, unavailable_ms, recovery_ms, recovery_cut
		FROM impacts WHERE run_id = ? ORDER BY start_ms, fault`, runID)
	if err != nil {
		return nil, fmt.Errorf("impacts of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []Impact
	for rows.Next() {
		var im Impact
		var rec sql.NullInt64
		var cut sql.NullString
		if err := rows.Scan(&im.Fault, &im.Target, &im.Outcome, &im.StartMS, &im.EndMS,
			&im.BaselineP50, &im.BaselineP95, &im.BaselineP99, &im.FaultP50, &im.FaultP95, &im.FaultP99,
			&im.AfterP50, &im.AfterP95, &im.AfterP99, &im.ThroughputChangePct, &im.Errors, &im.UnavailableMS, &rec, &cut); err != nil {
			return nil, err
		}
		if rec.Valid {
			im.RecoveryMS = &rec.Int64
		}
		im.RecoveryCut = cut.String
		out = append(out, im)
	}
	return out, rows.Err()
}

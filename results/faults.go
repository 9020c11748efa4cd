package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Verification is what the read-back of a verify: true run found (see
// migration 007 for the columns' meaning).
type Verification struct {
	InsertsAcked, DeletesAcked, Uncertain int64
	LostInserts, ResurrectedDeletes       int64
	Unreadable                            int64
	TookMS                                int64
}

// Lost is the number of acknowledged writes the database lost.
func (v Verification) Lost() int64 { return v.LostInserts + v.ResurrectedDeletes }

// AddVerification stores a run's read-back.
func (s *Store) AddVerification(ctx context.Context, runID int64, v Verification) error {
	err := s.tx(ctx, func(t *txn) error {
		return t.exec(ctx, `INSERT INTO verifications (run_id, inserts_acked, deletes_acked, uncertain,
			lost_inserts, resurrected_deletes, unreadable, took_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			runID, v.InsertsAcked, v.DeletesAcked, v.Uncertain, v.LostInserts, v.ResurrectedDeletes, v.Unreadable, v.TookMS)
	})
	if err != nil {
		return fmt.Errorf("add verification to run %d: %w", runID, err)
	}
	return nil
}

// ErrNoVerification is returned for a run that was not verified.
var ErrNoVerification = errors.New("the run was not verified (verify: true)")

// Verification returns a run's read-back, or ErrNoVerification.
func (s *Store) Verification(ctx context.Context, runID int64) (Verification, error) {
	var v Verification
	err := s.queryRow(ctx, `SELECT inserts_acked, deletes_acked, uncertain, lost_inserts, resurrected_deletes,
		unreadable, took_ms FROM verifications WHERE run_id = ?`, runID).Scan(&v.InsertsAcked, &v.DeletesAcked,
		&v.Uncertain, &v.LostInserts, &v.ResurrectedDeletes, &v.Unreadable, &v.TookMS)
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("run %d: %w", runID, ErrNoVerification)
	}
	if err != nil {
		return v, fmt.Errorf("verification of run %d: %w", runID, err)
	}
	return v, nil
}

// PlannedFault is one firing of a run's fault plan, as stored.
type PlannedFault struct {
	Name, Fault, Target, Link string
	Groups                    [][]string
	AtMS, ForMS, StableMS     int64
	DelayUS, JitterUS, Rate   int64
	Mode                      string
	Run, Heal                 string // command: a digest of each (experiment.ReplayBench), never the text
}

// AddFaultPlan stores a run's fault plan, in firing order.
func (s *Store) AddFaultPlan(ctx context.Context, runID int64, plan []PlannedFault) error {
	err := s.tx(ctx, func(t *txn) error {
		for i, f := range plan {
			if err := t.exec(ctx, `INSERT INTO fault_plans (run_id, seq, name, fault, target, link, groups,
				at_ms, stable_ms, for_ms, delay_us, jitter_us, rate, mode, run, heal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				runID, i, f.Name, f.Fault, f.Target, f.Link, joinGroups(f.Groups), f.AtMS, f.StableMS, f.ForMS,
				f.DelayUS, f.JitterUS, f.Rate, f.Mode, f.Run, f.Heal); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add fault plan to run %d: %w", runID, err)
	}
	return nil
}

// FaultPlan returns a run's fault plan in firing order (empty: the run had
// no faults, or ran before plans were stored).
func (s *Store) FaultPlan(ctx context.Context, runID int64) ([]PlannedFault, error) {
	rows, err := s.query(ctx, `SELECT name, fault, target, link, groups, at_ms, stable_ms, for_ms, delay_us, jitter_us,
		rate, mode, run, heal FROM fault_plans WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("fault plan of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []PlannedFault
	for rows.Next() {
		var f PlannedFault
		var groups string
		if err := rows.Scan(&f.Name, &f.Fault, &f.Target, &f.Link, &groups, &f.AtMS, &f.StableMS, &f.ForMS,
			&f.DelayUS, &f.JitterUS, &f.Rate, &f.Mode, &f.Run, &f.Heal); err != nil {
			return nil, err
		}
		f.Groups = splitGroups(groups)
		out = append(out, f)
	}
	return out, rows.Err()
}

func joinGroups(gs [][]string) string {
	out := ""
	for i, g := range gs {
		if i > 0 {
			out += "|"
		}
		for j, n := range g {
			if j > 0 {
				out += ","
			}
			out += n
		}
	}
	return out
}

func splitGroups(s string) [][]string {
	if s == "" {
		return nil
	}
	var out [][]string
	var g []string
	cur := ""
	for _, r := range s + "|" {
		switch r {
		case ',', '|':
			g = append(g, cur)
			cur = ""
			if r == '|' {
				out = append(out, g)
				g = nil
			}
		default:
			cur += string(r)
		}
	}
	return out
}

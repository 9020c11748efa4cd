package results

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Worker is one worker process of a distributed run, as stored in
// run_workers (dbrig run --workers N).
type Worker struct {
	Index       int
	Host        string
	PID         int
	ClockOffset time.Duration // worker clock − coordinator clock
	RTT         time.Duration // round trip of the ping the offset came from
	Ops         int64         // operations of the warmup and measure phases
	Records     int64         // records loaded
	Status      string        // WorkerDone, WorkerFailed, WorkerLost, WorkerInterrupted
	LostAt      time.Time     // zero unless lost
	Detail      string
	Clients     int // the share's clients
	// The worker's own measure phase, all operations (µs; 0 without one):
	// percentiles do not add, so the merge cannot give them back.
	RespP50, RespP99, LagP99 int64
}

// Worker statuses.
const (
	WorkerDone        = "done"
	WorkerFailed      = "failed"
	WorkerLost        = "lost"
	WorkerInterrupted = "interrupted"
)

// WorkerInterval is one worker's share of one merged interval, as stored
// in run_worker_intervals.
type WorkerInterval struct {
	Index           int
	Phase           string
	Seq             int
	Ops, Errors     int64
	Dropped, LagP99 int64   // LagP99 in µs
	RespP99         int64   // response time p99 of the second, all operations, µs
	TargetRate      float64 // the share's target ops/s in the second (0: none)
}

// AddWorkers stores the workers of a distributed run.
func (s *Store) AddWorkers(ctx context.Context, runID int64, ws []Worker) error {
	err := s.tx(ctx, func(t *txn) error {
		for _, w := range ws {
			var lost any
			if !w.LostAt.IsZero() {
				lost = fmtTime(w.LostAt)
			}
			if err := t.exec(ctx, `INSERT INTO run_workers (run_id, idx, host, pid, clock_offset_us, rtt_us, ops, records, status, lost_at, detail,
				clients, resp_p50_us, resp_p99_us, lag_p99_us)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				runID, w.Index, w.Host, w.PID, w.ClockOffset.Microseconds(), w.RTT.Microseconds(), w.Ops, w.Records, w.Status, lost, w.Detail,
				w.Clients, w.RespP50, w.RespP99, w.LagP99); err != nil {
				return err
			}
		}
		return touch(ctx, t, runID)
	})
	if err != nil {
		return fmt.Errorf("add workers to run %d: %w", runID, err)
	}
	return nil
}

// AddWorkerIntervals stores the workers' shares of merged intervals.
func (s *Store) AddWorkerIntervals(ctx context.Context, runID int64, ivs []WorkerInterval) error {
	err := s.tx(ctx, func(t *txn) error {
		for _, w := range ivs {
			if err := t.exec(ctx, `INSERT INTO run_worker_intervals (run_id, idx, phase, seq, ops, errors, dropped, lag_p99_us, resp_p99_us, target_rate)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, runID, w.Index, w.Phase, w.Seq, w.Ops, w.Errors, w.Dropped, w.LagP99, w.RespP99, w.TargetRate); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add worker intervals to run %d: %w", runID, err)
	}
	return nil
}

// Workers returns the workers of a run by index (none for a run of one
// process).
func (s *Store) Workers(ctx context.Context, runID int64) ([]Worker, error) {
	rows, err := s.query(ctx, `SELECT idx, host, pid, clock_offset_us, rtt_us, ops, records, status, lost_at, detail,
		clients, resp_p50_us, resp_p99_us, lag_p99_us FROM run_workers WHERE run_id = ? ORDER BY idx`, runID)
	if err != nil {
		return nil, fmt.Errorf("workers of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []Worker
	for rows.Next() {
		var w Worker
		var off, rtt int64
		var lost sql.NullString
		if err := rows.Scan(&w.Index, &w.Host, &w.PID, &off, &rtt, &w.Ops, &w.Records, &w.Status, &lost, &w.Detail,
			&w.Clients, &w.RespP50, &w.RespP99, &w.LagP99); err != nil {
			return nil, fmt.Errorf("workers of run %d: %w", runID, err)
		}
		w.ClockOffset, w.RTT = time.Duration(off)*time.Microsecond, time.Duration(rtt)*time.Microsecond
		if lost.Valid {
			if w.LostAt, err = parseTime(lost.String); err != nil {
				return nil, fmt.Errorf("workers of run %d: %w", runID, err)
			}
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// WorkerIntervals returns the workers' shares of a run's merged intervals,
// by phase order of storage, seq and worker.
func (s *Store) WorkerIntervals(ctx context.Context, runID int64) ([]WorkerInterval, error) {
	rows, err := s.query(ctx, `SELECT idx, phase, seq, ops, errors, dropped, lag_p99_us, resp_p99_us, target_rate
		FROM run_worker_intervals WHERE run_id = ? ORDER BY phase, seq, idx`, runID)
	if err != nil {
		return nil, fmt.Errorf("worker intervals of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []WorkerInterval
	for rows.Next() {
		var w WorkerInterval
		if err := rows.Scan(&w.Index, &w.Phase, &w.Seq, &w.Ops, &w.Errors, &w.Dropped, &w.LagP99, &w.RespP99, &w.TargetRate); err != nil {
			return nil, fmt.Errorf("worker intervals of run %d: %w", runID, err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/loadmodel"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/spec"
)

// Run statuses. A run is created "running" and finished once with one of the
// others; a run whose process died stays "running" (see RunRow.Abandoned).
const (
	StatusRunning     = "running"
	StatusDone        = "done"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	// StatusStopped is a run its caller ended early by its own rule (a
	// rating's SLA early stop: the verdict was certain): what it measured is
	// what it was for, so it is neither done nor interrupted.
	StatusStopped = "stopped"
)

// RunInfo is the full context of a run: what is needed to understand and
// repeat it. Target, Props, Command and Spec should be redacted by the caller;
// the store redacts them again.
type RunInfo struct {
	Name          string
	Tags          []string
	Command       string // command line
	System        string // database product
	Driver        string
	ServerVersion string
	Target        string
	Workload      string
	Props         map[string]string // every property (spec.Props.Map)
	Load          loadmodel.Load    // how operations were scheduled; MaxBacklog is not stored
	Host          Host
	DbrigVersion  string
	GoVersion     string // runtime.Version() when empty
	Start         time.Time
	Spec          string // property files or experiment file text
}

// Event is a timestamped fact of a run: a phase change, a fault and its
// outcome, a note.
type Event struct {
	Time    time.Time
	Kind    string // phase | fault | trigger | note …
	Name    string
	Detail  string
	Outcome string // "ok", what went wrong, or ""
}

// CreateRun records a new run with status "running" and returns its id.
func (s *Store) CreateRun(ctx context.Context, r RunInfo) (int64, error) {
	if r.Start.IsZero() {
		r.Start = time.Now()
	}
	if r.GoVersion == "" {
		r.GoVersion = runtime.Version()
	}
	props := make(map[string]string, len(r.Props))
	for k, v := range r.Props {
		props[k] = spec.RedactProp(k, v)
	}
	tags := cleanTags(r.Tags)
	start := fmtTime(r.Start)
	var id int64
	err := s.tx(ctx, func(t *txn) error {
		err := t.queryRow(ctx, `INSERT INTO runs (name, status, message, started_at, ended_at, updated_at, tags, command,
			system, driver, server_version, target, workload,
			load_model, clients, rate, arrival, think_time_s, warmup_s, duration_s, operations, seed,
			hostname, os, kernel, cpu_model, cpu_cores, memory_bytes, dbrig_version, go_version, spec)
			VALUES (?, ?, '', ?, NULL, ?, ?, ?,  ?, ?, ?, ?, ?,  ?, ?, ?, ?, ?, ?, ?, ?, ?,  ?, ?, ?, ?, ?, ?, ?, ?, ?)
			RETURNING id`,
			r.Name, StatusRunning, start, start, strings.Join(tags, ","), redactWords(r.Command),
			r.System, r.Driver, r.ServerVersion, spec.Redact(r.Target), r.Workload,
			r.Load.Model, r.Load.Clients, r.Load.Rate, r.Load.Arrival, r.Load.ThinkTime.Seconds(),
			r.Load.Warmup.Seconds(), r.Load.Duration.Seconds(), r.Load.Operations, r.Load.Seed,
			r.Host.Hostname, r.Host.OS, r.Host.Kernel, r.Host.CPUModel, r.Host.Cores, r.Host.MemoryBytes,
			r.DbrigVersion, r.GoVersion, spec.RedactText(r.Spec),
		).Scan(&id)
		if err != nil {
			return err
		}
		if err := recordOwner(ctx, t, id); err != nil {
			return err
		}
		for _, tag := range tags {
			if err := t.exec(ctx, `INSERT INTO run_tags (run_id, tag) VALUES (?, ?)`, id, tag); err != nil {
				return err
			}
		}
		if len(props) == 0 {
			return nil
		}
		stmt, err := t.prepare(ctx, `INSERT INTO run_props (run_id, key, value) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if _, err := stmt.ExecContext(ctx, id, k, props[k]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("create run: %w", err)
	}
	s.mu.Lock()
	s.starts[id] = r.Start
	s.mu.Unlock()
	return id, nil
}

// cleanTags trims tags, drops empty ones and duplicates, keeping the order.
func cleanTags(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// runStart returns the start of a run, from the cache or the database; a
// missing run is ErrNoRun.
func (s *Store) runStart(ctx context.Context, runID int64) (time.Time, error) {
	s.mu.Lock()
	start, ok := s.starts[runID]
	s.mu.Unlock()
	if ok {
		return start, nil
	}
	var text string
	err := s.queryRow(ctx, `SELECT started_at FROM runs WHERE id = ?`, runID).Scan(&text)
	if err != nil {
		return time.Time{}, noRun(runID, err)
	}
	if start, err = parseTime(text); err != nil {
		return time.Time{}, err
	}
	s.mu.Lock()
	s.starts[runID] = start
	s.mu.Unlock()
	return start, nil
}

// AddInterval stores one interval as it happens (one transaction): a row per
// operation with its histogram, and an OVERALL row that is written even when
// nothing completed, so that stalls show as zeros rather than gaps.
func (s *Store) AddInterval(ctx context.Context, runID int64, iv measure.Interval) error {
	start, err := s.runStart(ctx, runID)
	if err != nil {
		return fmt.Errorf("add interval: %w", err)
	}
	// Encode before the transaction: it is the costly part, and SQLite's
	// write lock should be held as briefly as possible.
	type row struct {
		op               string
		count, errors    int64
		classes          string
		resp             measure.Stats
		svcP99           int64
		hist             []byte
		dropped, backlog int64
		target           float64
		lagP99           int64
	}
	rows := make([]row, 0, len(iv.Ops)+1)
	allResp, allSvc := measure.NewHistogram(), measure.NewHistogram()
	allClasses := map[string]int64{}
	var allCount, allErrors int64
	for _, o := range iv.Ops {
		hist, err := encodeHist(o.Response)
		if err != nil {
			return fmt.Errorf("add interval: op %s: %w", o.Op, err)
		}
		rows = append(rows, row{op: o.Op, count: o.Count, errors: o.Errors, classes: encodeClasses(o.Classes),
			resp: measure.StatsOf(o.Response), svcP99: measure.Percentile(o.Service, 99), hist: hist})
		mergeInto(allResp, o.Response)
		mergeInto(allSvc, o.Service)
		for k, v := range o.Classes {
			allClasses[k] += v
		}
		allCount += o.Count
		allErrors += o.Errors
	}
	rows = append(rows, row{op: measure.OverallOp, count: allCount, errors: allErrors, classes: encodeClasses(allClasses),
		resp: measure.StatsOf(allResp), svcP99: measure.Percentile(allSvc, 99), dropped: iv.Dropped, backlog: iv.Backlog,
		target: iv.TargetRate, lagP99: measure.Percentile(iv.Lag, 99)})

	tMS := iv.End.Sub(start).Milliseconds()
	ivStart, length := fmtTime(iv.Start), iv.End.Sub(iv.Start).Milliseconds()
	err = s.tx(ctx, func(t *txn) error {
		stmt, err := t.prepare(ctx, `INSERT INTO intervals (run_id, phase, t_ms, started_at, length_ms, op, count, errors, classes,
			mean_us, p50_us, p95_us, p99_us, max_us, svc_p99_us, dropped, backlog, target_rate, lag_p99_us, hist)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, r := range rows {
			if _, err := stmt.ExecContext(ctx, runID, iv.Phase, tMS, ivStart, length, r.op, r.count, r.errors, r.classes,
				r.resp.Mean, r.resp.P50, r.resp.P95, r.resp.P99, r.resp.Max, r.svcP99, r.dropped, r.backlog, r.target, r.lagP99, r.hist); err != nil {
				return err
			}
		}
		return touch(ctx, t, runID)
	})
	if err != nil {
		return fmt.Errorf("add interval of run %d: %w", runID, err)
	}
	return nil
}

// touch marks a run as alive; ListRuns calls a silent running run abandoned.
func touch(ctx context.Context, t *txn, runID int64) error {
	return t.exec(ctx, `UPDATE runs SET updated_at = ? WHERE id = ?`, fmtTime(time.Now()), runID)
}

func mergeInto(dst, src *hdr.Histogram) {
	if src != nil {
		dst.Merge(src)
	}
}

// AddEvent stores one event of a run.
func (s *Store) AddEvent(ctx context.Context, runID int64, e Event) error {
	start, err := s.runStart(ctx, runID)
	if err != nil {
		return fmt.Errorf("add event: %w", err)
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	err = s.tx(ctx, func(t *txn) error {
		if err := t.exec(ctx, `INSERT INTO events (run_id, at, t_ms, kind, name, detail, outcome) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			runID, fmtTime(e.Time), e.Time.Sub(start).Milliseconds(), e.Kind, e.Name, redactWords(e.Detail), redactWords(e.Outcome)); err != nil {
			return err
		}
		return touch(ctx, t, runID)
	})
	if err != nil {
		return fmt.Errorf("add event to run %d: %w", runID, err)
	}
	return nil
}

// AddPhase stores the summary of one phase: its totals, the statistics and
// histograms of every operation and of OVERALL, and its error messages.
func (s *Store) AddPhase(ctx context.Context, runID int64, sum measure.Summary) error {
	if _, err := s.runStart(ctx, runID); err != nil {
		return fmt.Errorf("add phase: %w", err)
	}
	type encoded struct {
		op        measure.OpSummary
		hist, svc []byte
	}
	ops := make([]encoded, 0, len(sum.Ops)+1)
	overall := sum.Overall
	overall.Op = measure.OverallOp
	for _, o := range append(append([]measure.OpSummary(nil), sum.Ops...), overall) {
		h, err := encodeHist(o.ResponseHist)
		if err != nil {
			return fmt.Errorf("add phase %s: op %s: %w", sum.Phase, o.Op, err)
		}
		sh, err := encodeHist(o.ServiceHist)
		if err != nil {
			return fmt.Errorf("add phase %s: op %s: %w", sum.Phase, o.Op, err)
		}
		ops = append(ops, encoded{op: o, hist: h, svc: sh})
	}
	dur := sum.End.Sub(sum.Start).Seconds()
	err := s.tx(ctx, func(t *txn) error {
		var phaseID int64
		err := t.queryRow(ctx, `INSERT INTO phases (run_id, seq, phase, started_at, ended_at, duration_s, count, errors, throughput, dropped, dropped_late,
				lag_p50_us, lag_p99_us, lag_max_us)
			VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM phases WHERE run_id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			RETURNING id`,
			runID, runID, sum.Phase, fmtTime(sum.Start), fmtTime(sum.End), dur,
			overall.Count, overall.Errors, overall.Throughput, sum.Dropped, sum.Late, sum.Lag.P50, sum.Lag.P99, sum.Lag.Max).Scan(&phaseID)
		if err != nil {
			return err
		}
		stmt, err := t.prepare(ctx, `INSERT INTO op_stats (run_id, phase_id, phase, op, ord, count, errors, classes, throughput,
			mean_us, min_us, p50_us, p90_us, p95_us, p99_us, p999_us, p9999_us, max_us,
			svc_mean_us, svc_min_us, svc_p50_us, svc_p90_us, svc_p95_us, svc_p99_us, svc_p999_us, svc_p9999_us, svc_max_us,
			hist, svc_hist)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,  ?, ?, ?, ?, ?, ?, ?, ?, ?,  ?, ?, ?, ?, ?, ?, ?, ?, ?,  ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, e := range ops {
			o, r, v := e.op, e.op.Response, e.op.Service
			if _, err := stmt.ExecContext(ctx, runID, phaseID, sum.Phase, o.Op, i+1, o.Count, o.Errors, encodeClasses(o.Classes), o.Throughput,
				r.Mean, r.Min, r.P50, r.P90, r.P95, r.P99, r.P999, r.P9999, r.Max,
				v.Mean, v.Min, v.P50, v.P90, v.P95, v.P99, v.P999, v.P9999, v.Max,
				e.hist, e.svc); err != nil {
				return fmt.Errorf("op %s: %w", o.Op, err)
			}
		}
		for _, es := range sum.Errors {
			if err := t.exec(ctx, `INSERT INTO errors (run_id, phase_id, phase, op, class, message, count) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				runID, phaseID, sum.Phase, es.Op, es.Class, redactWords(es.Message), es.Count); err != nil {
				return err
			}
		}
		return touch(ctx, t, runID)
	})
	if err != nil {
		return fmt.Errorf("add phase %s to run %d: %w", sum.Phase, runID, err)
	}
	return nil
}

// FinishRun ends a running run with status done, failed, interrupted or
// stopped, and a message saying why (for the ones not done).
func (s *Store) FinishRun(ctx context.Context, runID int64, status string, end time.Time, message string) error {
	switch status {
	case StatusDone, StatusFailed, StatusInterrupted, StatusStopped:
	default:
		return fmt.Errorf("finish run %d: status %q: expected %s, %s, %s or %s", runID, status, StatusDone, StatusFailed, StatusInterrupted, StatusStopped)
	}
	res, err := s.exec(ctx, `UPDATE runs SET status = ?, ended_at = ?, updated_at = ?, message = ? WHERE id = ? AND status = ?`,
		status, fmtTime(end), fmtTime(time.Now()), redactWords(message), runID, StatusRunning)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", runID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("finish run %d: %w", runID, err)
	}
	if n == 1 {
		return nil
	}
	var current string
	if err := s.queryRow(ctx, `SELECT status FROM runs WHERE id = ?`, runID).Scan(&current); err != nil {
		return fmt.Errorf("finish run: %w", noRun(runID, err))
	}
	return fmt.Errorf("finish run %d as %s: it is already %s", runID, status, current)
}

// noRun turns sql.ErrNoRows into ErrNoRun.
func noRun(runID int64, err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("run %d: %w", runID, ErrNoRun)
	}
	return fmt.Errorf("run %d: %w", runID, err)
}

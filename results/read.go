package results

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/measure"
)

// AbandonAfter is how long a "running" run may go without any write before
// ListRuns reports it as abandoned (its process most likely died). Intervals
// arrive every second, so a minute of silence is not a slow run.
const AbandonAfter = time.Minute

// Filter selects runs; zero fields do not filter.
type Filter struct {
	System   string
	Workload string
	Status   string // stored status: running | done | failed | interrupted
	Tag      string
	Since    time.Time // runs started at or after
	Limit    int       // at most this many, newest first
	// NoRatingSteps leaves out the experiments of ratings (dbrig rate): the
	// runs a rating stored as its steps, or tagged rating:ID while it runs.
	NoRatingSteps bool
}

// RunRow is one run in a list.
type RunRow struct {
	ID            int64
	Name          string
	Status        string
	Abandoned     bool // status "running" but silent for AbandonAfter
	Message       string
	Start, End    time.Time // End is zero while running
	Updated       time.Time
	Tags          []string
	System        string
	Driver        string
	ServerVersion string
	Workload      string
	Model         string
	Clients       int
	Rate          float64
	// Of the OVERALL row of the last measure phase; zero without one.
	Count      int64
	Errors     int64
	Throughput float64
	P99US      int64
}

// DisplayStatus is the status to show: "abandoned" for a silent running run.
func (r RunRow) DisplayStatus() string {
	if r.Abandoned {
		return "abandoned"
	}
	return r.Status
}

// RunDetail is everything stored about a run.
type RunDetail struct {
	RunRow
	Info    RunInfo
	Phases  []measure.Summary // in order; histograms decoded
	Events  []Event
	Workers []Worker // a distributed run's workers (run_workers); none for one process
}

// Phase returns the last phase with the given name (e.g. measure.PhaseMeasure).
func (d *RunDetail) Phase(name string) (measure.Summary, bool) {
	for i := len(d.Phases) - 1; i >= 0; i-- {
		if d.Phases[i].Phase == name {
			return d.Phases[i], true
		}
	}
	return measure.Summary{}, false
}

// IntervalRow is one operation (or OVERALL) in one interval.
type IntervalRow struct {
	Phase            string
	T                time.Duration // interval end − run start
	Start            time.Time
	Length           time.Duration
	Op               string
	Count, Errors    int64
	Classes          map[string]int64
	MeanUS           float64
	P50US, P95US     int64
	P99US, MaxUS     int64
	SvcP99US         int64
	Dropped, Backlog int64   // OVERALL rows only
	TargetRate       float64 // OVERALL rows only: the rate the load model asked for (0: none)
	LagP99US         int64   // OVERALL rows only: dispatch lag p99 (the generator's own lateness)
	Hist             []byte
}

// Histogram decodes the interval's response-time histogram (nil for OVERALL
// rows and empty intervals). Decoding is left to the caller because most
// readers only need the stored percentiles.
func (r IntervalRow) Histogram() (*hdr.Histogram, error) { return DecodeHist(r.Hist) }

// runRowCols are the columns scanned by scanRunRow, for a "runs r" alias.
const runRowCols = `r.id, r.name, r.status, r.message, r.started_at, r.ended_at, r.updated_at, r.tags,
	r.system, r.driver, r.server_version, r.workload, r.load_model, r.clients, r.rate,
	COALESCE(m.count, 0), COALESCE(m.errors, 0), COALESCE(m.throughput, 0), COALESCE(m.p99_us, 0)`

// runRowFrom joins the OVERALL figures of each run's last measure phase.
const runRowFrom = `runs r LEFT JOIN op_stats m ON m.run_id = r.id AND m.op = '` + measure.OverallOp + `' AND m.phase_id =
	(SELECT MAX(p.id) FROM phases p WHERE p.run_id = r.id AND p.phase = 'measure')`

type scanner interface{ Scan(dest ...any) error }

func scanRunRow(sc scanner, extra ...any) (RunRow, error) {
	var (
		r                    RunRow
		start, updated, tags string
		end                  sql.NullString
		clients              int64
	)
	dest := append([]any{&r.ID, &r.Name, &r.Status, &r.Message, &start, &end, &updated, &tags,
		&r.System, &r.Driver, &r.ServerVersion, &r.Workload, &r.Model, &clients, &r.Rate,
		&r.Count, &r.Errors, &r.Throughput, &r.P99US}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return r, err
	}
	var err error
	if r.Start, err = parseTime(start); err != nil {
		return r, err
	}
	if r.End, err = nullTime(end); err != nil {
		return r, err
	}
	if r.Updated, err = parseTime(updated); err != nil {
		return r, err
	}
	if tags != "" {
		r.Tags = strings.Split(tags, ",")
	}
	r.Clients = int(clients)
	r.Abandoned = r.Status == StatusAbandoned || r.Status == StatusRunning && time.Since(r.Updated) > AbandonAfter
	return r, nil
}

// where returns the SQL conditions (on runs r) and their arguments of f.
func (f Filter) where() (where []string, args []any) {
	add := func(cond string, arg any) { where = append(where, cond); args = append(args, arg) }
	if f.System != "" {
		add("r.system = ?", f.System)
	}
	if f.Workload != "" {
		add("r.workload = ?", f.Workload)
	}
	if f.Status != "" {
		add("r.status = ?", f.Status)
	}
	if f.Tag != "" {
		add("r.id IN (SELECT t.run_id FROM run_tags t WHERE t.tag = ?)", f.Tag)
	}
	if !f.Since.IsZero() {
		add("r.started_at >= ?", fmtTime(f.Since))
	}
	if f.NoRatingSteps {
		add(`r.id NOT IN (SELECT s.run_id FROM rating_steps s WHERE s.run_id IS NOT NULL)
			AND r.id NOT IN (SELECT t.run_id FROM run_tags t WHERE t.tag LIKE ?)`, "rating:%")
	}
	return where, args
}

// ListRuns returns the runs that match f, newest first.
func (s *Store) ListRuns(ctx context.Context, f Filter) ([]RunRow, error) {
	where, args := f.where()
	return s.selectRuns(ctx, where, args, "r.started_at DESC, r.id DESC", f.Limit, 0)
}

// selectRuns is the run-list query of ListRuns and QueryRuns: the runs that
// match all of where, in order (SQL, from fixed strings only), limit rows
// from offset (limit 0: all).
func (s *Store) selectRuns(ctx context.Context, where []string, args []any, order string, limit, offset int) ([]RunRow, error) {
	q := "SELECT " + runRowCols + " FROM " + runRowFrom
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY " + order
	if limit > 0 {
		q += " LIMIT ?"
		args = append(args, limit)
		if offset > 0 {
			q += " OFFSET ?"
			args = append(args, offset)
		}
	}
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []RunRow
	for rows.Next() {
		r, err := scanRunRow(rows)
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}

// Run returns everything stored about one run; an unknown id is ErrNoRun.
func (s *Store) Run(ctx context.Context, id int64) (*RunDetail, error) {
	d := &RunDetail{}
	var thinkS, warmS, durS float64
	var cores int64
	info := &d.Info
	row, err := scanRunRow(s.queryRow(ctx, "SELECT "+runRowCols+`,
		r.command, r.target, r.arrival, r.think_time_s, r.warmup_s, r.duration_s, r.operations, r.seed,
		r.hostname, r.os, r.kernel, r.cpu_model, r.cpu_cores, r.memory_bytes, r.dbrig_version, r.go_version, r.spec
		FROM `+runRowFrom+" WHERE r.id = ?", id),
		&info.Command, &info.Target, &info.Load.Arrival, &thinkS, &warmS, &durS, &info.Load.Operations, &info.Load.Seed,
		&info.Host.Hostname, &info.Host.OS, &info.Host.Kernel, &info.Host.CPUModel, &cores, &info.Host.MemoryBytes,
		&info.DbrigVersion, &info.GoVersion, &info.Spec)
	if err != nil {
		return nil, fmt.Errorf("show run: %w", noRun(id, err))
	}
	d.RunRow = row
	info.Name, info.Tags, info.System, info.Driver = row.Name, row.Tags, row.System, row.Driver
	info.ServerVersion, info.Workload, info.Start = row.ServerVersion, row.Workload, row.Start
	info.Load.Model, info.Load.Clients, info.Load.Rate = row.Model, row.Clients, row.Rate
	info.Load.ThinkTime, info.Load.Warmup, info.Load.Duration = seconds(thinkS), seconds(warmS), seconds(durS)
	info.Host.Cores = int(cores)

	if info.Props, err = s.runProps(ctx, id); err != nil {
		return nil, fmt.Errorf("show run %d: %w", id, err)
	}
	if d.Phases, err = s.runPhases(ctx, id); err != nil {
		return nil, fmt.Errorf("show run %d: %w", id, err)
	}
	if d.Events, err = s.runEvents(ctx, id); err != nil {
		return nil, fmt.Errorf("show run %d: %w", id, err)
	}
	if d.Workers, err = s.Workers(ctx, id); err != nil {
		return nil, fmt.Errorf("show run %d: %w", id, err)
	}
	return d, nil
}

func histCount(h *hdr.Histogram) int64 {
	if h == nil {
		return 0
	}
	return h.TotalCount()
}

// seconds is a duration stored as float seconds. Rounded, not truncated: a
// float one ulp short of 1.001 must read back as 1.001s, not 1.000999999s.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

func (s *Store) runProps(ctx context.Context, id int64) (map[string]string, error) {
	rows, err := s.query(ctx, `SELECT key, value FROM run_props WHERE run_id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("properties: %w", err)
	}
	defer rows.Close()
	props := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("properties: %w", err)
		}
		props[k] = v
	}
	return props, rows.Err()
}

func (s *Store) runPhases(ctx context.Context, id int64) ([]measure.Summary, error) {
	rows, err := s.query(ctx, `SELECT id, phase, started_at, ended_at, dropped, dropped_late, lag_p50_us, lag_p99_us, lag_max_us FROM phases WHERE run_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("phases: %w", err)
	}
	var sums []measure.Summary
	index := map[int64]int{} // phase id → index in sums
	for rows.Next() {
		var pid int64
		var sum measure.Summary
		var start, end string
		if err := rows.Scan(&pid, &sum.Phase, &start, &end, &sum.Dropped, &sum.Late, &sum.Lag.P50, &sum.Lag.P99, &sum.Lag.Max); err != nil {
			rows.Close()
			return nil, fmt.Errorf("phases: %w", err)
		}
		if sum.Start, err = parseTime(start); err == nil {
			sum.End, err = parseTime(end)
		}
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("phases: %w", err)
		}
		index[pid] = len(sums)
		sums = append(sums, sum)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("phases: %w", err)
	}
	if err := s.readOpStats(ctx, id, sums, index); err != nil {
		return nil, err
	}
	if err := s.readErrors(ctx, id, sums, index); err != nil {
		return nil, err
	}
	return sums, nil
}

func (s *Store) readOpStats(ctx context.Context, id int64, sums []measure.Summary, index map[int64]int) error {
	rows, err := s.query(ctx, `SELECT phase_id, op, count, errors, classes, throughput,
		mean_us, min_us, p50_us, p90_us, p95_us, p99_us, p999_us, p9999_us, max_us,
		svc_mean_us, svc_min_us, svc_p50_us, svc_p90_us, svc_p95_us, svc_p99_us, svc_p999_us, svc_p9999_us, svc_max_us,
		hist, svc_hist
		FROM op_stats WHERE run_id = ? ORDER BY phase_id, ord`, id)
	if err != nil {
		return fmt.Errorf("op stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			pid           int64
			o             measure.OpSummary
			classes       string
			hist, svcHist []byte
		)
		r, v := &o.Response, &o.Service
		if err := rows.Scan(&pid, &o.Op, &o.Count, &o.Errors, &classes, &o.Throughput,
			&r.Mean, &r.Min, &r.P50, &r.P90, &r.P95, &r.P99, &r.P999, &r.P9999, &r.Max,
			&v.Mean, &v.Min, &v.P50, &v.P90, &v.P95, &v.P99, &v.P999, &v.P9999, &v.Max,
			&hist, &svcHist); err != nil {
			return fmt.Errorf("op stats: %w", err)
		}
		if o.Classes, err = decodeClasses(classes); err != nil {
			return fmt.Errorf("op stats %s: %w", o.Op, err)
		}
		if o.ResponseHist, err = DecodeHist(hist); err != nil {
			return fmt.Errorf("op stats %s: %w", o.Op, err)
		}
		if o.ServiceHist, err = DecodeHist(svcHist); err != nil {
			return fmt.Errorf("op stats %s: %w", o.Op, err)
		}
		r.Count, v.Count = histCount(o.ResponseHist), histCount(o.ServiceHist)
		i, ok := index[pid]
		if !ok {
			continue
		}
		if o.Op == measure.OverallOp {
			sums[i].Overall = o
		} else {
			sums[i].Ops = append(sums[i].Ops, o)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("op stats: %w", err)
	}
	return nil
}

func (s *Store) readErrors(ctx context.Context, id int64, sums []measure.Summary, index map[int64]int) error {
	rows, err := s.query(ctx, `SELECT phase_id, op, class, message, count FROM errors WHERE run_id = ?
		ORDER BY phase_id, count DESC, op, message`, id)
	if err != nil {
		return fmt.Errorf("errors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pid int64
		var e measure.ErrorSample
		if err := rows.Scan(&pid, &e.Op, &e.Class, &e.Message, &e.Count); err != nil {
			return fmt.Errorf("errors: %w", err)
		}
		if i, ok := index[pid]; ok {
			sums[i].Errors = append(sums[i].Errors, e)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("errors: %w", err)
	}
	return nil
}

func (s *Store) runEvents(ctx context.Context, id int64) ([]Event, error) {
	rows, err := s.query(ctx, `SELECT at, kind, name, detail, outcome FROM events WHERE run_id = ? ORDER BY at, id`, id)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var at string
		if err := rows.Scan(&at, &e.Kind, &e.Name, &e.Detail, &e.Outcome); err != nil {
			return nil, fmt.Errorf("events: %w", err)
		}
		if e.Time, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("events: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Intervals returns the per-second rows of a run in time order (per second:
// the operations by name, then OVERALL); an unknown id is ErrNoRun.
func (s *Store) Intervals(ctx context.Context, id int64) ([]IntervalRow, error) {
	if _, err := s.runStart(ctx, id); err != nil {
		return nil, fmt.Errorf("intervals: %w", err)
	}
	rows, err := s.query(ctx, `SELECT phase, t_ms, started_at, length_ms, op, count, errors, classes,
		mean_us, p50_us, p95_us, p99_us, max_us, svc_p99_us, dropped, backlog, target_rate, lag_p99_us, hist
		FROM intervals WHERE run_id = ?
		ORDER BY t_ms, CASE WHEN op = '`+measure.OverallOp+`' THEN 1 ELSE 0 END, op`, id)
	if err != nil {
		return nil, fmt.Errorf("intervals of run %d: %w", id, err)
	}
	defer rows.Close()
	var out []IntervalRow
	for rows.Next() {
		var r IntervalRow
		var tMS, lengthMS int64
		var start, classes string
		if err := rows.Scan(&r.Phase, &tMS, &start, &lengthMS, &r.Op, &r.Count, &r.Errors, &classes,
			&r.MeanUS, &r.P50US, &r.P95US, &r.P99US, &r.MaxUS, &r.SvcP99US, &r.Dropped, &r.Backlog, &r.TargetRate, &r.LagP99US, &r.Hist); err != nil {
			return nil, fmt.Errorf("intervals of run %d: %w", id, err)
		}
		r.T, r.Length = time.Duration(tMS)*time.Millisecond, time.Duration(lengthMS)*time.Millisecond
		if r.Start, err = parseTime(start); err != nil {
			return nil, fmt.Errorf("intervals of run %d: %w", id, err)
		}
		if r.Classes, err = decodeClasses(classes); err != nil {
			return nil, fmt.Errorf("intervals of run %d: %w", id, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("intervals of run %d: %w", id, err)
	}
	return out, nil
}

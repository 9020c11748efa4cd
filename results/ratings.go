package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// ErrNoRating is wrapped when a rating id is not in the store.
var ErrNoRating = errors.New("no such rating")

// Rating is one `dbrig rate` as stored in ratings (see the migration for
// the columns' meaning), with its steps.
type Rating struct {
	ID           int64
	Name         string
	Status       string
	Message      string
	Start, End   time.Time // End is zero while running
	System       string
	Workload     string
	SLA          string
	By           string // "rate" or "clients"
	Strategy     string
	Precision    float64
	StepS        float64
	SLADurationS float64
	Answer       *float64 // nil: no answer
	Confirmed    bool
	FirstLoadS   float64
	ResetCount   int64
	ResetsS      float64
	Experiments  int64
	ExperimentsS float64
	FinalS       float64
	TotalS       float64
	EarlySavedS  float64
	// SpreadLow, SpreadHigh: the band where runs contradicted each other
	// (a failure at SpreadLow, a pass at SpreadHigh); nil: none.
	SpreadLow, SpreadHigh *float64
	// MachineCV is how much this machine's cache-bound work varied before
	// the rating (coefficient of variation); nil: not measured.
	MachineCV *float64
	// ReferenceBefore, ReferenceAfter: what the reference probe completed
	// (ops/s) before the first and after the last experiment; nil: not run.
	ReferenceBefore, ReferenceAfter *float64
	// DatasetKey identifies the data set and the reference probe (the
	// migration says what goes in it); "": stored before there was one.
	DatasetKey string
	// ReferencePreviousID is the last earlier rating of the same data set
	// whose reference probe ran (0: none), ReferencePrevious what its probe
	// completed before its first experiment (ops/s).
	ReferencePreviousID int64
	ReferencePrevious   *float64
	// IntervalLow, IntervalHigh: the interval the runs support; nil: none.
	// IntervalUnbounded: no failure bounds it (each ran on a machine too
	// busy to tell): IntervalHigh is the lowest failure as run.
	IntervalLow, IntervalHigh *float64
	IntervalUnbounded         bool
	// OthersMean, OthersMax: the share of the machine's Cores other
	// processes kept busy before the experiments; nil: not measured.
	OthersMean, OthersMax *float64
	Cores                 int
	// BudgetS is the time budget (0: none), EstimateS the up-front estimate
	// of the experiments' time, BudgetStopped whether the budget stopped
	// the search before the precision.
	BudgetS, EstimateS float64
	BudgetStopped      bool
	// Final is the final runs' pass point; nil: no fit (every final run
	// passed, or none did, or none ran).
	Final *RatingFinal
	Steps []RatingStep
}

// RatingFinal is a rating's final runs' pass point as stored
// (analysis.PassPoint, which results may not import): the target they
// passed as often as they failed, its band, the fitted scale of the pass
// probability, and the final runs it was fitted to and that passed.
type RatingFinal struct {
	Mid, Low, High, Scale float64
	Runs, Passes          int
}

// ResetCeiling is how many times faster the rating would have been had
// its resets cost nothing (ResetCeiling of its Λ and ω·ν).
func (r Rating) ResetCeiling() float64 { return ResetCeiling(r.TotalS, r.ResetsS) }

// ResetCeiling is total / (total − resets), 0 without resets: for a rating
// that reloads, the most any reset strategy can gain with the same
// experiments (the seed paper's Λ model with ν = 0).
func ResetCeiling(total, resets float64) float64 {
	if resets <= 0 || total <= resets {
		return 0
	}
	return total / (total - resets)
}

// RatingStep is one experiment of a rating.
type RatingStep struct {
	Kind         string // "probe", "reference", "search" or "final"
	Target       float64
	Achieved     float64
	Pass         bool
	StoppedEarly bool
	Reason       string
	RunID        int64 // 0: no run was stored
	Reset        string
	ResetS       float64
	Seconds      float64
	Terms        []RatingTerm
	// Verdict is pass, fail or inconclusive ("" for the probes); a step
	// stored before verdicts were is read as pass or fail.
	Verdict         string
	InconclusiveWhy string // why it was inconclusive
	// Condition is the store's condition before the step (nil: not
	// measured); Drift the largest change from the rating's reference, of
	// DriftFigure (nil: no reference).
	Condition   []ConditionFigure
	Drift       *float64
	DriftFigure string
	// Others is the share of the machine other processes kept busy just
	// before the step (nil: not measured).
	Others *float64
}

// ConditionFigure is one figure of a store's condition (driver.Figure).
type ConditionFigure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// RatingTerm is one SLA term as a step measured it.
type RatingTerm struct {
	Term     string  `json:"term"`
	Measured float64 `json:"measured"`
	Limit    float64 `json:"limit"`
	Unit     string  `json:"unit"`
	Pass     bool    `json:"pass"`
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// finite keeps JSON and SQL away from NaN and infinities.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func nullFloat(f *float64) sql.NullFloat64 {
	if f == nil {
		return sql.NullFloat64{}
	}
	return sql.NullFloat64{Float64: finite(*f), Valid: true}
}

// nullID stores a row id, 0 as NULL (none).
func nullID(id int64) sql.NullInt64 { return sql.NullInt64{Int64: id, Valid: id != 0} }

func floatPtr(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	return &f.Float64
}

// CreateRating stores a rating that is starting (status running, no steps)
// and returns its id: its experiments are tagged with it.
func (s *Store) CreateRating(ctx context.Context, r Rating) (int64, error) {
	if r.Start.IsZero() {
		r.Start = time.Now()
	}
	var id int64
	err := s.queryRow(ctx, `INSERT INTO ratings (name, status, message, started_at, ended_at, system, workload, sla,
		search_by, strategy, precision_frac, step_s, sla_duration_s, answer, confirmed,
		first_load_s, reset_count, resets_s, experiment_count, experiments_s, final_s, total_s, early_saved_s, budget_s, estimate_s, dataset_key)
		VALUES (?, ?, '', ?, NULL, ?, ?, ?,  ?, ?, ?, ?, ?, NULL, 0,  0, 0, 0, 0, 0, 0, 0, 0, ?, ?, ?) RETURNING id`,
		r.Name, StatusRunning, fmtTime(r.Start), r.System, r.Workload, r.SLA,
		r.By, r.Strategy, r.Precision, r.StepS, r.SLADurationS, finite(r.BudgetS), finite(r.EstimateS), r.DatasetKey).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("create rating: %w", err)
	}
	return id, nil
}

// AddRatingStep appends one experiment to a rating.
func (s *Store) AddRatingStep(ctx context.Context, ratingID int64, seq int, st RatingStep) error {
	for i := range st.Terms {
		st.Terms[i].Measured, st.Terms[i].Limit = finite(st.Terms[i].Measured), finite(st.Terms[i].Limit)
	}
	terms, err := json.Marshal(st.Terms)
	if err != nil {
		return fmt.Errorf("rating %d step %d: %w", ratingID, seq, err)
	}
	var run sql.NullInt64
	if st.RunID != 0 {
		run = sql.NullInt64{Int64: st.RunID, Valid: true}
	}
	var cond sql.NullString
	if st.Condition != nil {
		for i := range st.Condition {
			st.Condition[i].Value = finite(st.Condition[i].Value)
		}
		b, err := json.Marshal(st.Condition)
		if err != nil {
			return fmt.Errorf("rating %d step %d: %w", ratingID, seq, err)
		}
		cond = sql.NullString{String: string(b), Valid: true}
	}
	_, err = s.exec(ctx, `INSERT INTO rating_steps (rating_id, seq, kind, target, achieved, pass, stopped_early, reason,
		run_id, reset, reset_s, seconds, terms, verdict, inconclusive_why, store_condition, drift, drift_figure, others_share)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		ratingID, seq, st.Kind, finite(st.Target), finite(st.Achieved), b2i(st.Pass), b2i(st.StoppedEarly), redactWords(st.Reason),
		run, st.Reset, st.ResetS, st.Seconds, string(terms), st.Verdict, redactWords(st.InconclusiveWhy), cond, nullFloat(st.Drift), st.DriftFigure, nullFloat(st.Others))
	if err != nil {
		return fmt.Errorf("rating %d step %d: %w", ratingID, seq, err)
	}
	return nil
}

// FinishRating stores a rating's end: status, answer and time split.
func (s *Store) FinishRating(ctx context.Context, r Rating) error {
	if r.End.IsZero() {
		r.End = time.Now()
	}
	answer := nullFloat(r.Answer)
	var passMid, passLow, passHigh, passScale sql.NullFloat64
	var finalRuns, finalPasses int64
	if f := r.Final; f != nil {
		passMid, passLow, passHigh, passScale = nullFloat(&f.Mid), nullFloat(&f.Low), nullFloat(&f.High), nullFloat(&f.Scale)
		finalRuns, finalPasses = int64(f.Runs), int64(f.Passes)
	}
	res, err := s.exec(ctx, `UPDATE ratings SET status = ?, message = ?, ended_at = ?, answer = ?, confirmed = ?,
		first_load_s = ?, reset_count = ?, resets_s = ?, experiment_count = ?, experiments_s = ?, final_s = ?,
		total_s = ?, early_saved_s = ?, spread_low = ?, spread_high = ?, machine_cv = ?,
		reference_before = ?, reference_after = ?, interval_low = ?, interval_high = ?, budget_stopped = ?,
		interval_unbounded = ?, others_mean = ?, others_max = ?, cores = ?, reference_previous_id = ?, reference_previous = ?,
		pass_mid = ?, pass_low = ?, pass_high = ?, pass_scale = ?, final_runs = ?, final_passes = ? WHERE id = ?`,
		r.Status, redactWords(r.Message), fmtTime(r.End), answer, b2i(r.Confirmed),
		r.FirstLoadS, r.ResetCount, r.ResetsS, r.Experiments, r.ExperimentsS, r.FinalS,
		r.TotalS, r.EarlySavedS, nullFloat(r.SpreadLow), nullFloat(r.SpreadHigh), nullFloat(r.MachineCV),
		nullFloat(r.ReferenceBefore), nullFloat(r.ReferenceAfter), nullFloat(r.IntervalLow), nullFloat(r.IntervalHigh), b2i(r.BudgetStopped),
		b2i(r.IntervalUnbounded), nullFloat(r.OthersMean), nullFloat(r.OthersMax), r.Cores, nullID(r.ReferencePreviousID), nullFloat(r.ReferencePrevious),
		passMid, passLow, passHigh, passScale, finalRuns, finalPasses, r.ID)
	if err != nil {
		return fmt.Errorf("finish rating %d: %w", r.ID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("finish rating %d: %w", r.ID, ErrNoRating)
	}
	return nil
}

const ratingColumns = `id, name, status, message, started_at, ended_at, system, workload, sla, search_by, strategy,
	precision_frac, step_s, sla_duration_s, answer, confirmed, first_load_s, reset_count, resets_s,
	experiment_count, experiments_s, final_s, total_s, early_saved_s, spread_low, spread_high, machine_cv,
	reference_before, reference_after, interval_low, interval_high, budget_s, estimate_s, budget_stopped,
	interval_unbounded, others_mean, others_max, cores, dataset_key, reference_previous_id, reference_previous,
	pass_mid, pass_low, pass_high, pass_scale, final_runs, final_passes`

func scanRating(sc interface{ Scan(...any) error }) (Rating, error) {
	var r Rating
	var start string
	var end sql.NullString
	var answer, spreadLow, spreadHigh, machineCV, refBefore, refAfter, ivLow, ivHigh, othersMean, othersMax, refPrev sql.NullFloat64
	var passMid, passLow, passHigh, passScale sql.NullFloat64
	var refPrevID sql.NullInt64
	var finalRuns, finalPasses int64
	var confirmed, budgetStopped, unbounded, cores int64
	err := sc.Scan(&r.ID, &r.Name, &r.Status, &r.Message, &start, &end, &r.System, &r.Workload, &r.SLA, &r.By, &r.Strategy,
		&r.Precision, &r.StepS, &r.SLADurationS, &answer, &confirmed, &r.FirstLoadS, &r.ResetCount, &r.ResetsS,
		&r.Experiments, &r.ExperimentsS, &r.FinalS, &r.TotalS, &r.EarlySavedS, &spreadLow, &spreadHigh, &machineCV,
		&refBefore, &refAfter, &ivLow, &ivHigh, &r.BudgetS, &r.EstimateS, &budgetStopped,
		&unbounded, &othersMean, &othersMax, &cores, &r.DatasetKey, &refPrevID, &refPrev,
		&passMid, &passLow, &passHigh, &passScale, &finalRuns, &finalPasses)
	if err != nil {
		return r, err
	}
	if r.Start, err = parseTime(start); err != nil {
		return r, err
	}
	if r.End, err = nullTime(end); err != nil {
		return r, err
	}
	r.Answer, r.SpreadLow, r.SpreadHigh, r.MachineCV = floatPtr(answer), floatPtr(spreadLow), floatPtr(spreadHigh), floatPtr(machineCV)
	r.ReferenceBefore, r.ReferenceAfter = floatPtr(refBefore), floatPtr(refAfter)
	r.IntervalLow, r.IntervalHigh = floatPtr(ivLow), floatPtr(ivHigh)
	r.Confirmed, r.BudgetStopped = confirmed != 0, budgetStopped != 0
	r.IntervalUnbounded, r.OthersMean, r.OthersMax, r.Cores = unbounded != 0, floatPtr(othersMean), floatPtr(othersMax), int(cores)
	r.ReferencePreviousID, r.ReferencePrevious = refPrevID.Int64, floatPtr(refPrev)
	if passMid.Valid {
		r.Final = &RatingFinal{Mid: passMid.Float64, Low: passLow.Float64, High: passHigh.Float64, Scale: passScale.Float64,
			Runs: int(finalRuns), Passes: int(finalPasses)}
	}
	return r, nil
}

// PreviousReference returns the last rating before rating `before` of the
// data set key whose reference probe ran, and what that probe completed
// before its first experiment (ok false: none). An empty key has none.
func (s *Store) PreviousReference(ctx context.Context, key string, before int64) (id int64, ops float64, ok bool, err error) {
	if key == "" {
		return 0, 0, false, nil
	}
	err = s.queryRow(ctx, `SELECT id, reference_before FROM ratings
		WHERE dataset_key = ? AND id < ? AND reference_before IS NOT NULL AND reference_before > 0
		ORDER BY id DESC LIMIT 1`, key, before).Scan(&id, &ops)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("the last rating of the same data set: %w", err)
	}
	return id, ops, true, nil
}

// GetRating returns one rating with its steps.
func (s *Store) GetRating(ctx context.Context, id int64) (Rating, error) {
	r, err := scanRating(s.queryRow(ctx, `SELECT `+ratingColumns+` FROM ratings WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("rating %d: %w", id, ErrNoRating)
	}
	if err != nil {
		return r, fmt.Errorf("rating %d: %w", id, err)
	}
	rows, err := s.query(ctx, `SELECT kind, target, achieved, pass, stopped_early, reason, run_id, reset, reset_s, seconds, terms,
		verdict, inconclusive_why, store_condition, drift, drift_figure, others_share
		FROM rating_steps WHERE rating_id = ? ORDER BY seq`, id)
	if err != nil {
		return r, fmt.Errorf("rating %d steps: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var st RatingStep
		var pass, early int64
		var run sql.NullInt64
		var terms string
		var cond sql.NullString
		var drift, others sql.NullFloat64
		if err := rows.Scan(&st.Kind, &st.Target, &st.Achieved, &pass, &early, &st.Reason, &run, &st.Reset, &st.ResetS, &st.Seconds, &terms,
			&st.Verdict, &st.InconclusiveWhy, &cond, &drift, &st.DriftFigure, &others); err != nil {
			return r, fmt.Errorf("rating %d steps: %w", id, err)
		}
		st.Pass, st.StoppedEarly, st.RunID, st.Drift, st.Others = pass != 0, early != 0, run.Int64, floatPtr(drift), floatPtr(others)
		if err := json.Unmarshal([]byte(terms), &st.Terms); err != nil {
			return r, fmt.Errorf("rating %d steps: terms: %w", id, err)
		}
		if cond.Valid {
			if err := json.Unmarshal([]byte(cond.String), &st.Condition); err != nil {
				return r, fmt.Errorf("rating %d steps: store_condition: %w", id, err)
			}
		}
		if st.Verdict == "" && st.Kind != "probe" && st.Kind != "reference" { // stored before verdicts were
			st.Verdict = "fail"
			if st.Pass {
				st.Verdict = "pass"
			}
			if why, ok := strings.CutPrefix(st.Reason, "inconclusive, repeated: "); ok {
				st.Verdict = "inconclusive"
				st.InconclusiveWhy, _, _ = strings.Cut(why, "; ")
			}
		}
		r.Steps = append(r.Steps, st)
	}
	return r, rows.Err()
}

// ListRatings returns the newest ratings first, without their steps.
func (s *Store) ListRatings(ctx context.Context, limit int) ([]Rating, error) {
	if limit <= 0 {
		limit = 50
	}
	rows, err := s.query(ctx, `SELECT `+ratingColumns+` FROM ratings ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list ratings: %w", err)
	}
	defer rows.Close()
	var out []Rating
	for rows.Next() {
		r, err := scanRating(rows)
		if err != nil {
			return nil, fmt.Errorf("list ratings: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

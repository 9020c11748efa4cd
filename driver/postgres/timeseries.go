package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
)

// TSDB is PostgreSQL with the time-series table layout (pg.timeseries=table):
// the DB of the key-value layout plus driver.Points, so the time-series
// workloads compare a general-purpose store with the specialised ones.
//
// Per workload table T, two plain tables, made on first use:
//
//	T_series(id serial PRIMARY KEY, key text UNIQUE, tags jsonb)   -- one row per series
//	T_points(series_id int, time bigint, <field> double precision…,
//	         PRIMARY KEY (series_id, time))                        -- one row per point
//
// key is driver.SeriesKey (measurement and sorted tags), time Unix ns; a
// field's column is added the first time a point carries it. A write is one
// INSERT … SELECT FROM unnest(arrays) ON CONFLICT DO UPDATE (a point written
// again replaces the old one); queries are one SELECT each, aggregates
// grouped by bucket in the server.
type TSDB struct {
	*DB
	mu     sync.Mutex
	tables map[string]*tsTable
}

var (
	_ driver.Points       = (*TSDB)(nil)
	_ driver.PointDeleter = (*TSDB)(nil)
)

// tsTable is what TSDB knows of one workload table's time-series tables.
type tsTable struct {
	series, points string // quoted names
	mu             sync.Mutex
	ids            map[string]int32 // series key → id
	cols           map[string]bool  // field columns that exist
}

func (db *TSDB) tsTable(ctx context.Context, name string) (*tsTable, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if t, ok := db.tables[name]; ok {
		return t, nil
	}
	t := &tsTable{series: pgx.Identifier{name + "_series"}.Sanitize(), points: pgx.Identifier{name + "_points"}.Sanitize(),
		ids: map[string]int32{}, cols: map[string]bool{}}
	ctx, cancel := db.opCtx(ctx)
	defer cancel()
	stmts := []string{
		"CREATE TABLE IF NOT EXISTS " + t.series + " (id serial PRIMARY KEY, key text COLLATE \"C\" UNIQUE NOT NULL, tags jsonb NOT NULL)",
		"CREATE TABLE IF NOT EXISTS " + t.points + " (series_id int NOT NULL, time bigint NOT NULL, PRIMARY KEY (series_id, time))",
	}
	for _, s := range stmts {
		if _, err := db.pool.Exec(ctx, s); err != nil {
			return nil, fmt.Errorf("postgres: create %s: %w", name, classify(err))
		}
	}
	rows, err := db.pool.Query(ctx, "SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped", t.points)
	if err != nil {
		return nil, classify(err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, classify(err)
	}
	for _, c := range cols {
		t.cols[c] = true
	}
	if db.tables == nil {
		db.tables = map[string]*tsTable{}
	}
	db.tables[name] = t
	return t, nil
}

// prepare makes the columns of pts' fields and the series rows they name,
// and returns each point's series id.
func (db *TSDB) prepare(ctx context.Context, t *tsTable, pts []driver.Point, ids []int32) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range pts {
		for _, f := range pts[i].Fields {
			if t.cols[f.Name] {
				continue
			}
			stmt := "ALTER TABLE " + t.points + " ADD COLUMN IF NOT EXISTS " + pgx.Identifier{f.Name}.Sanitize() + " double precision"
			if _, err := db.exec(ctx, stmt); err != nil {
				return fmt.Errorf("postgres: add column %s: %w", f.Name, classify(err))
			}
			t.cols[f.Name] = true
		}
		key := driver.SeriesKey(pts[i].Measurement, pts[i].Tags)
		id, ok := t.ids[key]
		if !ok {
			tags, _ := json.Marshal(tagMap(pts[i].Tags))
			err := db.pool.QueryRow(ctx, "INSERT INTO "+t.series+" (key, tags) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key RETURNING id", key, tags).Scan(&id)
			if err != nil {
				return fmt.Errorf("postgres: series %s: %w", key, classify(err))
			}
			t.ids[key] = id
		}
		ids[i] = id
	}
	return nil
}

func tagMap(tags []driver.Tag) map[string]string {
	m := make(map[string]string, len(tags))
	for _, t := range tags {
		m[t.Key] = t.Value
	}
	return m
}

// WritePoints upserts pts with one statement over arrays.
func (db *TSDB) WritePoints(ctx context.Context, table string, pts []driver.Point) error {
	if len(pts) == 0 {
		return nil
	}
	t, err := db.tsTable(ctx, table)
	if err != nil {
		return err
	}
	ids := make([]int32, len(pts))
	if err := db.prepare(ctx, t, pts, ids); err != nil {
		return err
	}
	times := make([]int64, len(pts))
	var names []string
	vals := map[string][]*string{}
	for i := range pts {
		times[i] = pts[i].Time
		for _, f := range pts[i].Fields {
			col, ok := vals[f.Name]
			if !ok {
				col = make([]*string, len(pts))
				names = append(names, f.Name)
			}
			s := string(f.Value)
			col[i] = &s
			vals[f.Name] = col
		}
	}
	var cols, arrs, sets strings.Builder
	args := []any{ids, times}
	for i, n := range names {
		q := pgx.Identifier{n}.Sanitize()
		fmt.Fprintf(&cols, ", %s", q)
		fmt.Fprintf(&arrs, ", $%d::float8[]", i+3)
		if i > 0 {
			sets.WriteString(", ")
		}
		fmt.Fprintf(&sets, "%s = EXCLUDED.%s", q, q)
		args = append(args, vals[n])
	}
	stmt := fmt.Sprintf("INSERT INTO %s (series_id, time%s) SELECT * FROM unnest($1::int[], $2::bigint[]%s) ON CONFLICT (series_id, time) DO UPDATE SET %s",
		t.points, cols.String(), arrs.String(), sets.String())
	if _, err := db.exec(ctx, stmt, args...); err != nil {
		return fmt.Errorf("postgres: write %d points: %w", len(pts), classify(err))
	}
	return nil
}

var pgAgg = map[string]string{driver.AggSum: "sum", driver.AggAvg: "avg", driver.AggMin: "min", driver.AggMax: "max", driver.AggCount: "count"}

func seriesKeys(q driver.Query) []string {
	keys := make([]string, len(q.Series))
	for i, s := range q.Series {
		keys[i] = driver.SeriesKey(q.Measurement, s)
	}
	return keys
}

// QueryPoints answers q with one SELECT.
func (db *TSDB) QueryPoints(ctx context.Context, table string, q driver.Query) ([]driver.Series, error) {
	t, err := db.tsTable(ctx, table)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	has := t.cols[q.Field]
	t.mu.Unlock()
	if !has {
		return nil, nil // no point has the field yet
	}
	f := "p." + pgx.Identifier{q.Field}.Sanitize()
	where := fmt.Sprintf("p.series_id IN (SELECT id FROM %s WHERE key = ANY($1)) AND p.time BETWEEN $2 AND $3 AND %s IS NOT NULL", t.series, f)
	args := []any{seriesKeys(q), q.From, q.To}
	if q.Agg != "" {
		fn, ok := pgAgg[q.Agg]
		if !ok {
			return nil, errclass.Wrap(errclass.Other, fmt.Errorf("postgres: aggregate %q (expected sum, avg, min, max, count)", q.Agg))
		}
		bucket := "$2::bigint"
		if q.Step > 0 {
			bucket = "$2::bigint + (p.time - $2::bigint) / $4::bigint * $4::bigint"
			args = append(args, q.Step)
		}
		stmt := fmt.Sprintf("SELECT %s AS b, %s(%s)::float8 FROM %s p WHERE %s GROUP BY b ORDER BY b", bucket, fn, f, t.points, where)
		return db.tsRows(ctx, stmt, args, false)
	}
	stmt := fmt.Sprintf("SELECT s.tags, p.time, %s FROM %s p JOIN %s s ON s.id = p.series_id WHERE %s ORDER BY p.series_id, p.time", f, t.points, t.series, where)
	if q.Last {
		stmt = fmt.Sprintf("SELECT DISTINCT ON (p.series_id) s.tags, p.time, %s FROM %s p JOIN %s s ON s.id = p.series_id WHERE %s ORDER BY p.series_id, p.time DESC", f, t.points, t.series, where)
	}
	return db.tsRows(ctx, stmt, args, true)
}

// tsRows runs stmt and collects (tags,) time, value rows into series: a
// new series where the tags change (rows come ordered by series).
func (db *TSDB) tsRows(ctx context.Context, stmt string, args []any, tagged bool) ([]driver.Series, error) {
	c, err := db.connOf(ctx, db.reads)
	if err != nil {
		return nil, err
	}
	defer db.release(c)
	qctx, err := db.queryCtx(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := c.Query(qctx, stmt, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", classify(err))
	}
	defer rows.Close()
	var out []driver.Series
	var last []byte
	for rows.Next() {
		var tags []byte
		var ts int64
		var v float64
		dst := []any{&ts, &v}
		if tagged {
			dst = []any{&tags, &ts, &v}
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, fmt.Errorf("postgres: %w", classify(err))
		}
		if len(out) == 0 || tagged && string(tags) != string(last) {
			s := driver.Series{}
			if tagged {
				if err := json.Unmarshal(tags, &s.Tags); err != nil {
					return nil, errclass.Wrap(errclass.Other, fmt.Errorf("postgres: series tags: %w", err))
				}
			}
			out = append(out, s)
			last = tags
		}
		s := &out[len(out)-1]
		s.Times = append(s.Times, ts)
		s.Values = append(s.Values, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: %w", classify(err))
	}
	return out, nil
}

// DeletePoints deletes q's series' points in [q.From, q.To].
func (db *TSDB) DeletePoints(ctx context.Context, table string, q driver.Query) error {
	t, err := db.tsTable(ctx, table)
	if err != nil {
		return err
	}
	stmt := fmt.Sprintf("DELETE FROM %s WHERE series_id IN (SELECT id FROM %s WHERE key = ANY($1)) AND time BETWEEN $2 AND $3", t.points, t.series)
	if _, err := db.exec(ctx, stmt, seriesKeys(q), q.From, q.To); err != nil {
		return fmt.Errorf("postgres: delete points: %w", classify(err))
	}
	return nil
}

// Reset empties the key-value tables and drops the time-series tables
// this DB used.
func (db *TSDB) Reset(ctx context.Context) error {
	if err := db.DB.Reset(ctx); err != nil {
		return err
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	names := map[string]bool{}
	for name := range db.DB.tables.All() { // the table property's, made at Open
		names[name] = true
	}
	for name := range db.tables {
		names[name] = true
	}
	for name := range names {
		drop := "DROP TABLE IF EXISTS " + pgx.Identifier{name + "_points"}.Sanitize() + ", " + pgx.Identifier{name + "_series"}.Sanitize()
		if _, err := db.exec(ctx, drop); err != nil {
			return fmt.Errorf("postgres reset %s: %w", name, classify(err))
		}
		delete(db.tables, name)
	}
	return nil
}

var _ driver.Footprint = (*TSDB)(nil)

// DiskBytes is pg_total_relation_size (heap, indexes, TOAST) of the
// table's series and points tables.
func (db *TSDB) DiskBytes(ctx context.Context, table string) (int64, error) {
	t, err := db.tsTable(ctx, table)
	if err != nil {
		return 0, err
	}
	var n int64
	err = db.pool.QueryRow(ctx, "SELECT pg_total_relation_size($1::regclass) + pg_total_relation_size($2::regclass)", t.points, t.series).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres: size of %s: %w", table, classify(err))
	}
	return n, nil
}

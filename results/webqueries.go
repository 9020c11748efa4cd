package results

// Read-only queries of the web dashboard (package web). Every statement is a
// fixed, parameterised SELECT: sort keys are looked up in a whitelist and
// never spliced from user input.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// RunQuery is one page of a filtered, sorted run list.
type RunQuery struct {
	Filter           // Limit is the page size (0: no limit)
	Until  time.Time // runs started before this time; zero: no bound
	Sort   string    // a key of RunSortKeys; "" is "started"
	Asc    bool      // ascending; the default is descending (newest, fastest … first)
	Offset int
}

// runSortColumns maps the sort keys of RunQuery to SQL expressions.
var runSortColumns = map[string]string{
	"id":         "r.id",
	"name":       "r.name",
	"started":    "r.started_at",
	"status":     "r.status",
	"system":     "r.system",
	"version":    "r.server_version",
	"workload":   "r.workload",
	"clients":    "r.clients",
	"throughput": "COALESCE(m.throughput, 0)",
	"p99":        "COALESCE(m.p99_us, 0)",
	"errors":     "COALESCE(m.errors, 0)",
}

// RunSortKeys are the accepted values of RunQuery.Sort, in order.
func RunSortKeys() []string {
	keys := make([]string, 0, len(runSortColumns))
	for k := range runSortColumns {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// QueryRuns returns one page of the runs that match q, and how many match in all.
func (s *Store) QueryRuns(ctx context.Context, q RunQuery) ([]RunRow, int, error) {
	key := q.Sort
	if key == "" {
		key = "started"
	}
	col, ok := runSortColumns[key]
	if !ok {
		return nil, 0, fmt.Errorf("list runs: sort key %q: expected one of %s", q.Sort, strings.Join(RunSortKeys(), ", "))
	}
	where, args := q.Filter.where()
	if !q.Until.IsZero() {
		where, args = append(where, "r.started_at < ?"), append(args, fmtTime(q.Until))
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int // the same filter as selectRuns, without its joins
	if err := s.queryRow(ctx, "SELECT COUNT(*) FROM runs r"+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("list runs: %w", err)
	}
	dir := " DESC"
	if q.Asc {
		dir = " ASC"
	}
	runs, err := s.selectRuns(ctx, where, args, col+dir+", r.id"+dir, q.Filter.Limit, q.Offset)
	if err != nil {
		return nil, 0, err
	}
	return runs, total, nil
}

// FilterValues are the distinct values the run filters can take.
type FilterValues struct {
	Systems, Workloads, Tags, Statuses []string
}

// Values returns the distinct systems, workloads, tags and statuses in the store.
func (s *Store) Values(ctx context.Context) (FilterValues, error) {
	var v FilterValues
	for _, q := range []struct {
		dst  *[]string
		stmt string
	}{
		{&v.Systems, `SELECT DISTINCT system FROM runs ORDER BY system`},
		{&v.Workloads, `SELECT DISTINCT workload FROM runs ORDER BY workload`},
		{&v.Tags, `SELECT DISTINCT tag FROM run_tags ORDER BY tag`},
		{&v.Statuses, `SELECT DISTINCT status FROM runs ORDER BY status`},
	} {
		rows, err := s.query(ctx, q.stmt)
		if err != nil {
			return v, fmt.Errorf("filter values: %w", err)
		}
		for rows.Next() {
			var x string
			if err := rows.Scan(&x); err != nil {
				rows.Close()
				return v, fmt.Errorf("filter values: %w", err)
			}
			*q.dst = append(*q.dst, x)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return v, fmt.Errorf("filter values: %w", err)
		}
	}
	return v, nil
}

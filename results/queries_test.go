package results

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
)

// queryBlock is "### title" followed by a ```sql block.
var queryBlock = regexp.MustCompile("(?s)### ([^\n]+)\n.*?```sql\n(.*?)```")

func docQueries(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("queries.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range queryBlock.FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = m[2]
	}
	if len(out) == 0 {
		t.Fatal("no queries found in queries.md")
	}
	return out
}

func runQuery(t *testing.T, s *Store, q string) [][]string {
	t.Helper()
	rows, err := s.query(context.Background(), q)
	if err != nil {
		t.Fatalf("query failed: %v\n%s", err, q)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func strs(vals ...any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = fmt.Sprint(v)
	}
	return out
}

// TestDocumentedQueries runs every query of queries.md on a store with known
// runs and checks its answer, so the documentation cannot go stale.
func TestDocumentedQueries(t *testing.T) { testDocumentedQueries(t, newSQLite(t)) }

// testDocumentedQueries needs an empty store: the queries name runs 1 and 2.
func testDocumentedQueries(t *testing.T, s *Store) {
	ctx := context.Background()
	day := func(n int) time.Time { return time.Date(2025, 5, n, 12, 0, 0, 0, time.UTC) }

	type spec struct {
		system, version, workload, records string
		scale                              int64
		throughput                         float64
		finish                             bool
	}
	specs := []spec{
		{"redis", "7.2", "ycsb/workloada", "1000000", 1, 100, true},
		{"redis", "7.4", "ycsb/workloada", "1000000", 2, 150, true},
		{"postgres", "16.4", "ycsb/workloadb", "1000", 1, 80, true},
		{"redis", "7.4", "ycsb/workloada", "", 1, 999, false}, // still running: not counted
	}
	sums := make([]measure.Summary, len(specs))
	var ivs []measure.Interval
	for i, sp := range specs {
		info := RunInfo{System: sp.system, ServerVersion: sp.version, Workload: sp.workload, Start: day(i + 1)}
		if sp.records != "" {
			info.Props = map[string]string{"recordcount": sp.records}
		}
		id, err := s.CreateRun(ctx, info)
		if err != nil {
			t.Fatal(err)
		}
		if id != int64(i+1) {
			t.Fatalf("run id %d, want %d (the queries name runs 1 and 2)", id, i+1)
		}
		if i == 0 {
			ivs = []measure.Interval{
				interval(t, measure.PhaseMeasure, day(1), 90, 10, 0),
				interval(t, measure.PhaseMeasure, day(1).Add(time.Second), 45, 5, 5),
			}
			for _, iv := range ivs {
				if err := s.AddInterval(ctx, id, iv); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.AddMetrics(ctx, id, []Metric{
				{Node: "node1", Time: day(1).Add(1100 * time.Millisecond), CPUUser: 30, CPUSys: 10},
				{Node: "dbrig", Time: day(1).Add(1200 * time.Millisecond), CPUUser: 20},
				{Node: "node1", Time: day(1).Add(2100 * time.Millisecond), Gone: true},
			}); err != nil {
				t.Fatal(err)
			}
			for _, e := range []Event{
				{Time: day(1).Add(1500 * time.Millisecond), Kind: "fault", Name: "kill node2", Outcome: "ok"},
				{Time: day(1).Add(1600 * time.Millisecond), Kind: "note", Name: "not a fault"},
			} {
				if err := s.AddEvent(ctx, id, e); err != nil {
					t.Fatal(err)
				}
			}
		}
		sums[i] = sampleSummary(t, measure.PhaseMeasure, day(i+1), sp.scale)
		sums[i].Overall.Throughput = sp.throughput
		if err := s.AddPhase(ctx, id, sums[i]); err != nil {
			t.Fatal(err)
		}
		if sp.finish {
			if err := s.FinishRun(ctx, id, StatusDone, day(i+1).Add(time.Minute), ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := func(i int) measure.OpSummary { return sums[i].Ops[0] }
	allOps := func(i int) []measure.OpSummary { return append(sums[i].Ops, sums[i].Overall) }
	var compare [][]string
	for k, a := range allOps(0) {
		b := allOps(1)[k]
		compare = append(compare, strs(a.Op, a.Throughput, b.Throughput, a.Response.P99, b.Response.P99, b.Response.P99-a.Response.P99))
	}
	secondP99 := func(iv measure.Interval) int64 {
		h := measure.NewHistogram()
		for _, o := range iv.Ops {
			h.Merge(o.Response)
		}
		return h.ValueAtPercentile(99)
	}
	want := map[string][][]string{
		"p99 of READ across runs of a system": {
			strs(1, "7.2", fmtTime(day(1)), read(0).Response.P99, read(0).Throughput),
			strs(2, "7.4", fmtTime(day(2)), read(1).Response.P99, read(1).Throughput),
		},
		"Throughput by system and workload": {
			strs("postgres", "ycsb/workloadb", 1, 80, 80),
			strs("redis", "ycsb/workloada", 2, 125, 150),
		},
		"Compare two runs, operation by operation": compare,
		"Runs with a given property": {
			strs(1, "redis", "ycsb/workloada"),
			strs(2, "redis", "ycsb/workloada"),
		},
		"Throughput and p99 second by second": {
			strs(1, 100, secondP99(ivs[0]), 1, 0),
			strs(2, 50, secondP99(ivs[1]), 1, 5),
		},
		"Errors by class in the measure phase": {
			strs(1, "redis", "READ", "timeout", 2),
			strs(2, "redis", "READ", "timeout", 2),
			strs(3, "postgres", "READ", "timeout", 2),
			strs(4, "redis", "READ", "timeout", 2),
		},
		"CPU of every node beside the throughput": {
			strs(1, "dbrig", 20, 100),
			strs(1, "node1", 40, 100),
		},
		"Faults and what happened": {
			strs(1, 1500, "fault", "kill node2", "ok"),
		},
	}
	queries := docQueries(t)
	for title, q := range queries {
		t.Run(title, func(t *testing.T) {
			w, ok := want[title]
			if !ok {
				t.Fatalf("queries.md has %q, which this test does not check: add its expected answer", title)
			}
			got := runQuery(t, s, q)
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("got\n%v\nwant\n%v\nquery:\n%s", got, w, strings.TrimSpace(q))
			}
		})
	}
	for title := range want {
		if _, ok := queries[title]; !ok {
			t.Errorf("expected query %q is missing from queries.md", title)
		}
	}
}

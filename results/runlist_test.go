package results

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// ListRuns and QueryRuns share selectRuns: order, limit, offset and total.
func TestRunLists(t *testing.T) {
	ctx := context.Background()
	s := newSQLite(t)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range []string{"c", "a", "e", "b", "d"} {
		if _, err := s.CreateRun(ctx, RunInfo{Name: name, System: fmt.Sprint("sys", i%2), Start: base.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	names := func(rows []RunRow) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Name)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		list  func() ([]RunRow, int, error)
		want  []string
		total int
	}{
		{"list all", func() ([]RunRow, int, error) { r, err := s.ListRuns(ctx, Filter{}); return r, -1, err },
			[]string{"d", "b", "e", "a", "c"}, -1},
		{"list limit", func() ([]RunRow, int, error) { r, err := s.ListRuns(ctx, Filter{Limit: 2}); return r, -1, err },
			[]string{"d", "b"}, -1},
		{"list filter", func() ([]RunRow, int, error) { r, err := s.ListRuns(ctx, Filter{System: "sys0"}); return r, -1, err },
			[]string{"d", "e", "c"}, -1},
		{"query default", func() ([]RunRow, int, error) { return s.QueryRuns(ctx, RunQuery{}) },
			[]string{"d", "b", "e", "a", "c"}, 5},
		{"query page", func() ([]RunRow, int, error) {
			return s.QueryRuns(ctx, RunQuery{Filter: Filter{Limit: 2}, Sort: "name", Asc: true, Offset: 2})
		}, []string{"c", "d"}, 5},
		{"query filter until", func() ([]RunRow, int, error) {
			return s.QueryRuns(ctx, RunQuery{Filter: Filter{System: "sys0"}, Until: base.Add(3 * time.Minute), Sort: "name"})
		}, []string{"e", "c"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, total, err := tc.list()
			if err != nil {
				t.Fatal(err)
			}
			if got := names(rows); !slices.Equal(got, tc.want) || total != tc.total {
				t.Errorf("got %v (total %d), want %v (total %d)", got, total, tc.want, tc.total)
			}
		})
	}
	if _, _, err := s.QueryRuns(ctx, RunQuery{Sort: "bogus"}); err == nil {
		t.Error("QueryRuns with an unknown sort key succeeded")
	}
}

// NoRatingSteps leaves out the experiments of ratings, whether the rating
// stored them as its steps or they are still tagged rating:ID only; runs
// with other tags and stopped runs stay.
func TestListRunsNoRatingSteps(t *testing.T) {
	ctx := context.Background()
	s := newSQLite(t)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ids := map[string]int64{}
	for i, r := range []RunInfo{
		{Name: "plain"}, {Name: "step", Tags: []string{"rating:1"}}, {Name: "running step", Tags: []string{"rating:1"}},
		{Name: "untagged step"}, {Name: "tagged", Tags: []string{"nightly"}},
	} {
		r.System, r.Start = "sys", base.Add(time.Duration(i)*time.Minute)
		id, err := s.CreateRun(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		ids[r.Name] = id
	}
	if err := s.FinishRun(ctx, ids["step"], StatusStopped, base.Add(time.Hour), "stopped early: p99 over"); err != nil {
		t.Fatal(err)
	}
	rid, err := s.CreateRating(ctx, Rating{Name: "r", Start: base, System: "sys"})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"step", "untagged step"} {
		if err := s.AddRatingStep(ctx, rid, i+1, RatingStep{Kind: "search", Target: 100, RunID: ids[name]}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{"tagged", "untagged step", "running step", "step", "plain"}},
		{Filter{NoRatingSteps: true}, []string{"tagged", "plain"}},
		{Filter{Status: StatusStopped}, []string{"step"}},
	} {
		rows, err := s.ListRuns(ctx, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v: got %v, want %v", tc.f, got, tc.want)
		}
	}
}

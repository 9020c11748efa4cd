package results

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

func testRatings(t *testing.T, s *Store) {
	ctx := context.Background()
	start := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	id, err := s.CreateRating(ctx, Rating{Name: "r1", Start: start, System: "sim", Workload: "workloada",
		SLA: "p95<50ms", By: "rate", Strategy: "reload", Precision: 0.05, StepS: 2, SLADurationS: 10})
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.CreateRun(ctx, sampleInfo("rating", start))
	if err != nil {
		t.Fatal(err)
	}
	steps := []RatingStep{
		{Kind: "search", Target: 1000, Achieved: 999.5, Pass: true, RunID: run, Reset: "reload", ResetS: 0.5, Seconds: 2,
			Terms: []RatingTerm{{Term: "p95<50ms", Measured: 0.6, Limit: 50, Unit: "ms", Pass: true}}},
		{Kind: "search", Target: 4000, Achieved: 2000, StoppedEarly: true, Reason: "p95<50ms cannot hold", Reset: "reload", Seconds: 0.8,
			Terms: []RatingTerm{{Term: "p95<50ms", Measured: 900, Limit: 50, Unit: "ms"}}},
	}
	for i, st := range steps {
		if err := s.AddRatingStep(ctx, id, i, st); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.GetRating(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusRunning || got.Answer != nil || !got.End.IsZero() || len(got.Steps) != 2 || got.SpreadLow != nil || got.SpreadHigh != nil || got.MachineCV != nil {
		t.Fatalf("running rating = %+v", got)
	}
	if st := got.Steps[1]; !st.StoppedEarly || st.Pass || st.RunID != 0 || st.Terms[0].Measured != 900 || st.Reason != steps[1].Reason {
		t.Errorf("step 1 = %+v, want %+v", st, steps[1])
	}
	if st := got.Steps[0]; st.RunID != run || !st.Pass || st.Achieved != 999.5 || st.ResetS != 0.5 {
		t.Errorf("step 0 = %+v", st)
	}
	answer := 1950.0
	fin := got
	fin.Status, fin.Message, fin.Answer, fin.Confirmed = "done", "ok", &answer, true
	fin.FirstLoadS, fin.ResetCount, fin.ResetsS, fin.Experiments, fin.ExperimentsS, fin.FinalS, fin.TotalS, fin.EarlySavedS = 1, 2, 3, 4, 5, 6, 7, 8
	spreadLow, spreadHigh := 1800.0, 2250.0
	fin.SpreadLow, fin.SpreadHigh = &spreadLow, &spreadHigh
	machineCV := 0.25
	fin.MachineCV = &machineCV
	if got.Final != nil {
		t.Errorf("running rating's final runs = %+v, want none", got.Final)
	}
	final := RatingFinal{Mid: 1950.5, Low: 1900.25, High: 2010.75, Scale: 0.031, Runs: 16, Passes: 9}
	fin.Final = &final
	if err := s.FinishRating(ctx, fin); err != nil {
		t.Fatal(err)
	}
	got, err = s.GetRating(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Answer == nil || *got.Answer != answer || !got.Confirmed || got.Status != "done" || got.End.IsZero() ||
		got.FirstLoadS != 1 || got.ResetCount != 2 || got.ResetsS != 3 || got.Experiments != 4 || got.ExperimentsS != 5 ||
		got.FinalS != 6 || got.TotalS != 7 || got.EarlySavedS != 8 || !got.Start.Equal(start) ||
		got.SpreadLow == nil || *got.SpreadLow != spreadLow || got.SpreadHigh == nil || *got.SpreadHigh != spreadHigh ||
		got.MachineCV == nil || *got.MachineCV != machineCV {
		t.Errorf("finished rating = %+v", got)
	}
	if got.Final == nil || *got.Final != final {
		t.Errorf("final runs = %+v, want %+v", got.Final, final)
	}
	list, err := s.ListRatings(ctx, 5)
	if err != nil || len(list) == 0 || list[0].ID != id {
		t.Errorf("ListRatings = %v, %v; want rating %d first", list, err, id)
	}
	if _, err := s.GetRating(ctx, id+1000); !errors.Is(err, ErrNoRating) {
		t.Errorf("GetRating(unknown) = %v, want ErrNoRating", err)
	}
	if err := s.FinishRating(ctx, Rating{ID: id + 1000, Status: "done"}); !errors.Is(err, ErrNoRating) {
		t.Errorf("FinishRating(unknown) = %v, want ErrNoRating", err)
	}
}

func TestRatingsSQLite(t *testing.T) { testRatings(t, newSQLite(t)) }

// PreviousReference finds the last earlier rating of the same data set
// whose reference probe ran: not a later one, not another data set's, not
// one without a probe; and the comparison is stored with the rating.
func TestPreviousReference(t *testing.T) {
	ctx := context.Background()
	s := newSQLite(t)
	add := func(key string, before *float64) int64 {
		t.Helper()
		id, err := s.CreateRating(ctx, Rating{Name: "r", System: "sim", Workload: "w", SLA: "p95<1ms", By: "rate", Strategy: "keep", DatasetKey: key})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.FinishRating(ctx, Rating{ID: id, Status: StatusDone, ReferenceBefore: before}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	f := func(v float64) *float64 { return &v }
	a := add("k1", f(5000))
	b := add("k1", f(4500))
	add("k2", f(9000)) // another data set
	add("k1", nil)     // no probe
	now := add("k1", f(4000))
	add("k1", f(3000)) // later
	for _, c := range []struct {
		key    string
		before int64
		id     int64
		ops    float64
	}{{"k1", now, b, 4500}, {"k1", b, a, 5000}, {"k1", a, 0, 0}, {"k3", now, 0, 0}, {"", now, 0, 0}} {
		id, ops, ok, err := s.PreviousReference(ctx, c.key, c.before)
		if err != nil || id != c.id || ops != c.ops || ok != (c.id != 0) {
			t.Errorf("PreviousReference(%q, %d) = %d, %v, %v, %v; want %d, %v", c.key, c.before, id, ops, ok, err, c.id, c.ops)
		}
	}
	if err := s.FinishRating(ctx, Rating{ID: now, Status: StatusDone, ReferenceBefore: f(4000), ReferencePreviousID: b, ReferencePrevious: f(4500)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetRating(ctx, now)
	if err != nil || got.DatasetKey != "k1" || got.ReferencePreviousID != b || got.ReferencePrevious == nil || *got.ReferencePrevious != 4500 {
		t.Errorf("stored %+v, %v: want the key and the previous rating's reference", got, err)
	}
}

func TestRatingsPostgres(t *testing.T) { testRatings(t, openPostgres(t)) }

func TestResetCeiling(t *testing.T) {
	for _, c := range []struct {
		total, resets, want float64
	}{
		{320, 220, 3.2}, // PostgreSQL at 1 M records, reload (README)
		{100, 0, 0},     // no resets: nothing to gain
		{100, 100, 0},   // all resets: not a rating
		{100, 150, 0},   // inconsistent times: no claim
		{100, 50, 2},
	} {
		if got := ResetCeiling(c.total, c.resets); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("ResetCeiling(%v, %v) = %v, want %v", c.total, c.resets, got, c.want)
		}
	}
}

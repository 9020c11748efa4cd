package report

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/loadmodel"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
)

// TestLoadRoundTrip follows every kind of load model from the run's config
// through the store and back: the load read back is the one stored (all
// but MaxBacklog, which has no column), and every text shown of it (list
// column, runs show, report context) is the text of the original.
func TestLoadRoundTrip(t *testing.T) {
	open := func(arrival string, rate float64, backlog int) run.Model {
		m, err := run.ModelNamed(run.OpenName, loadmodel.Load{Rate: rate, Arrival: arrival, MaxBacklog: backlog})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cases := []struct {
		name     string
		cfg      run.Config
		loadOnly bool
	}{
		{"closed", run.Config{Clients: 4, Model: run.Closed{}, Duration: 30 * time.Second, Seed: 7}, false},
		{"closed think", run.Config{Clients: 3, Model: run.Closed{ThinkTime: 1500 * time.Microsecond},
			Warmup: 2300 * time.Millisecond, Operations: 1_000_000, Seed: -3}, false},
		// Durations the store keeps as float seconds that a truncating read
		// got back 1ns short (64.999µs, 1.000999999s).
		{"closed odd durations", run.Config{Clients: 2, Model: run.Closed{ThinkTime: 65 * time.Microsecond},
			Warmup: 1001 * time.Millisecond, Duration: 1007 * time.Millisecond, Seed: 3}, false},
		{"closed rate", run.Config{Clients: 16, Model: run.Closed{Rate: 12.5}, Duration: time.Minute, Seed: 1}, false},
		{"open constant", run.Config{Clients: 8, Model: open(run.ConstantName, 5000, 0), Warmup: 10 * time.Second,
			Duration: 90 * time.Second, Operations: 42, Seed: 9}, false},
		{"open poisson", run.Config{Clients: 1, Model: open(run.PoissonName, 0.5, 7), Duration: 100 * time.Millisecond}, false},
		{"open schedule", run.Config{Clients: 32, Model: run.Open{Arrival: run.Poisson{}, Schedule: []run.RateStep{
			{Rate: 100, For: time.Second}, {Rate: 2500, For: 3 * time.Second, Ramp: true}, {Rate: 400, For: time.Second}}},
			Duration: 5 * time.Second, Seed: 5}, false},
		{"load only", run.Config{Clients: 2, Model: run.Closed{}, Seed: 11}, true},
	}
	ctx := context.Background()
	s, err := results.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Check(!tc.loadOnly); err != nil {
				t.Fatalf("config: %v", err)
			}
			want := tc.cfg.Settings()
			if tc.loadOnly {
				want.Model = "load" // as experiment stores a load-only run
			}
			id, err := s.CreateRun(ctx, results.RunInfo{Name: tc.name, System: "sim", Workload: "ycsb/workloada",
				Load: want, Start: start})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.FinishRun(ctx, id, results.StatusDone, start.Add(time.Minute), ""); err != nil {
				t.Fatal(err)
			}
			d, err := s.Run(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got := d.Info.Load
			stored := want
			stored.MaxBacklog = 0
			if got != stored {
				t.Errorf("read back %+v\n      stored %+v", got, stored)
			}
			for _, r := range []struct{ what, got, want string }{
				{"brief", format.LoadBrief(got), format.LoadBrief(want)},
				{"detail", format.LoadDetail(got), format.LoadDetail(want)},
				{"phrase", format.LoadPhrase(got), format.LoadPhrase(want)},
				{"runs show", runShow(t, d), runShow(t, withLoad(d, want))},
				{"runs list", runList(t, s, id), runList(t, s, id, want)},
			} {
				if r.got != r.want {
					t.Errorf("%s of the load read back:\n%s\nof the original:\n%s", r.what, r.got, r.want)
				}
			}
		})
	}
}

func withLoad(d *results.RunDetail, l loadmodel.Load) *results.RunDetail {
	c := *d
	c.Info.Load = l
	c.Model, c.Clients, c.Rate = l.Model, l.Clients, l.Rate
	return &c
}

func runShow(t *testing.T, d *results.RunDetail) string {
	t.Helper()
	var buf bytes.Buffer
	if err := RunShow(&buf, d); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// runList renders the stored run id as `dbrig runs` lists it, with its load
// replaced by orig when given.
func runList(t *testing.T, s *results.Store, id int64, orig ...loadmodel.Load) string {
	t.Helper()
	rows, err := s.ListRuns(context.Background(), results.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.ID != id {
			continue
		}
		for _, l := range orig {
			r.Model, r.Clients, r.Rate = l.Model, l.Clients, l.Rate
		}
		var buf bytes.Buffer
		if err := RunList(&buf, []results.RunRow{r}); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	t.Fatalf("run %d not listed", id)
	return ""
}

package analysis

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/dbrig/dbrig/results"
)

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{7}, 7}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{-1, -5}, -3},
		{[]float64{100, 105, 98, 102}, 101},
	} {
		in := slices.Clone(tt.in)
		if got := Median(in); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		if !slices.Equal(in, tt.in) {
			t.Errorf("Median reordered its input: %v", in)
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
}

// hist builds runs one day apart with the given throughputs and p99s (µs).
func hist(tps []float64, p99s []int64) []results.RunRow {
	start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]results.RunRow, len(tps))
	for i := range tps {
		rows[i] = results.RunRow{ID: int64(i + 1), Start: start.AddDate(0, 0, i), Count: 1000, Throughput: tps[i], P99US: p99s[i]}
	}
	return rows
}

func TestRegressed(t *testing.T) {
	before := hist([]float64{100, 105, 98, 102}, []int64{1000, 1050, 980, 1020}) // medians 101 and 1010
	for _, tt := range []struct {
		name    string
		tp      float64
		p99     int64
		drop    bool
		rise    bool
		tpRatio float64
	}{
		{"steady", 101, 1010, false, false, 0},
		{"just above 90%", 91, 1010, false, false, 0},
		{"throughput drop", 80, 1010, true, false, 80.0 / 101},
		{"p99 rise", 101, 1300, false, true, 0},
		{"both", 50, 5000, true, true, 50.0 / 101},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := results.RunRow{Count: 1, Throughput: tt.tp, P99US: tt.p99}
			r := Regressed(before, run)
			if !tt.drop && !tt.rise {
				if r != nil {
					t.Fatalf("Regressed = %+v, want nil", r)
				}
				return
			}
			if r == nil {
				t.Fatal("Regressed = nil, want a regression")
			}
			if r.ThroughputDrop != tt.drop || r.P99Rise != tt.rise || r.Window != 4 {
				t.Errorf("Regressed = %+v, want drop %v, rise %v, window 4", r, tt.drop, tt.rise)
			}
			if tt.drop && math.Abs(r.Throughput-tt.tpRatio) > 1e-12 {
				t.Errorf("throughput ratio = %v, want %v", r.Throughput, tt.tpRatio)
			}
			if want := float64(tt.p99) / 1010; math.Abs(r.P99-want) > 1e-12 {
				t.Errorf("p99 ratio = %v, want %v", r.P99, want)
			}
		})
	}
	// Nothing to compare with: no runs before, none with data, or no data itself.
	empty := results.RunRow{Count: 0, Throughput: 1}
	if Regressed(nil, results.RunRow{Count: 1}) != nil || Regressed([]results.RunRow{empty}, results.RunRow{Count: 1}) != nil ||
		Regressed(before, empty) != nil {
		t.Error("a run without anything to compare regressed")
	}
}

func TestHistoryOf(t *testing.T) {
	// Steady throughput; run 5 has three times the p99 of the runs before.
	rows := entries(hist([]float64{1000, 1000, 1000, 1000, 1000, 1000, 850}, []int64{100, 105, 98, 102, 300, 101, 100}))
	h := HistoryOf(rows)
	var flagged []int64
	for _, r := range h.Runs {
		if r.Regression != nil {
			flagged = append(flagged, r.ID)
		}
	}
	// Run 6 is measured against runs 1–5 (median 102), not against run 5.
	// Run 7 drops to 85% of the median throughput of runs 2–6.
	if !slices.Equal(flagged, []int64{5, 7}) || h.Regressions != 2 {
		t.Fatalf("regressions = %v (%d), want runs 5 and 7", flagged, h.Regressions)
	}
	if r := h.Runs[4].Regression; !r.P99Rise || r.ThroughputDrop || r.Window != 4 || math.Abs(r.P99-300.0/101) > 1e-12 {
		t.Errorf("run 5: %+v, want p99 at 300/101 of the median of 4 runs", r)
	}
	if r := h.Runs[6].Regression; !r.ThroughputDrop || r.Window != 5 || r.Throughput != 0.85 {
		t.Errorf("run 7: %+v, want throughput at 85%% of the median of 5 runs", r)
	}
	if len(h.Charts) != 2 {
		t.Fatalf("%d charts, want throughput and p99", len(h.Charts))
	}
	p99 := h.Charts[1]
	if p99.ID != "history-p99" || float64(p99.Lines[0].Y[4]) != 0.3 || float64(p99.X[1]-p99.X[0]) != 86400 {
		t.Errorf("p99 chart: id %s, y[4] %v ms, x step %v s", p99.ID, p99.Lines[0].Y[4], p99.X[1]-p99.X[0])
	}
	if len(p99.Marks) != 2 || p99.Marks[0].Label != "#5" || p99.Marks[0].At != float64(rows[4].Start.Unix()) {
		t.Errorf("marks = %+v, want #5 and #7 at their starts", p99.Marks)
	}
	if h := HistoryOf(nil); h.Charts != nil || h.Runs != nil {
		t.Errorf("HistoryOf(nil) = %+v, want empty", h)
	}
}

func entries(rows []results.RunRow) []HistoryEntry {
	out := make([]HistoryEntry, len(rows))
	for i, r := range rows {
		out[i] = HistoryEntry{RunRow: r}
	}
	return out
}

// A history never mixes load models, and never judges a run with faults.
func TestHistories(t *testing.T) {
	type run struct {
		model   string
		clients int
		rate    float64
		faults  bool
		tp      float64
		p99     int64
	}
	closed16 := func(tp float64, p99 int64) run { return run{"closed", 16, 0, false, tp, p99} }
	closed1 := func(tp float64, p99 int64) run { return run{"closed", 1, 0, false, tp, p99} }
	open := func(faults bool, tp float64, p99 int64) run { return run{"open", 8, 1000, faults, tp, p99} }
	for _, tc := range []struct {
		name    string
		runs    []run // oldest first; ids 1, 2, …
		loads   []string
		groups  [][]int64 // ids per load model, oldest first
		flagged []int64
	}{
		{
			name: "a sweep of client counts is no regression",
			runs: []run{closed16(16000, 900), closed1(1000, 100), closed16(16100, 910), closed1(990, 101), closed1(1010, 99)},
			// Mixed, run 2 (1,000 ops/s after 16,000) would be a throughput drop.
			loads: []string{"closed 1", "closed 16"}, groups: [][]int64{{2, 4, 5}, {1, 3}},
		},
		{
			name: "fixed-rate fault runs are not judged",
			runs: []run{open(false, 1000, 500), open(false, 1000, 520), open(true, 950, 900000), open(false, 1000, 510), open(true, 1000, 2000000), open(false, 1000, 505)},
			// Judged against the runs without faults only: run 4 and 6 are steady.
			loads: []string{"open 8 @1,000/s"}, groups: [][]int64{{1, 2, 3, 4, 5, 6}},
		},
		{
			name:  "a fault run is no baseline: a slow calm run is still caught",
			runs:  []run{open(false, 1000, 500), open(true, 1000, 5000), open(true, 1000, 6000), open(false, 1000, 5200)},
			loads: []string{"open 8 @1,000/s"}, groups: [][]int64{{1, 2, 3, 4}}, flagged: []int64{4},
		},
		{
			name:    "a regression within one load model",
			runs:    []run{closed16(16000, 900), closed1(1000, 100), closed16(16100, 910), closed16(12000, 900)},
			loads:   []string{"closed 16", "closed 1"},
			groups:  [][]int64{{1, 3, 4}, {2}},
			flagged: []int64{4},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
			var rows []HistoryEntry
			for i, r := range tc.runs {
				rows = append(rows, HistoryEntry{Faults: r.faults, RunRow: results.RunRow{ID: int64(i + 1), Start: start.AddDate(0, 0, i),
					Model: r.model, Clients: r.clients, Rate: r.rate, Count: 1000, Throughput: r.tp, P99US: r.p99}})
			}
			hs := Histories(rows)
			var loads []string
			var groups [][]int64
			var flagged []int64
			for _, h := range hs {
				loads = append(loads, h.Load)
				var ids []int64
				for _, r := range h.Runs {
					ids = append(ids, r.ID)
					if r.Regression != nil {
						flagged = append(flagged, r.ID)
					}
				}
				groups = append(groups, ids)
			}
			if !slices.Equal(loads, tc.loads) {
				t.Errorf("load models %q, want %q", loads, tc.loads)
			}
			if len(groups) != len(tc.groups) {
				t.Fatalf("groups %v, want %v", groups, tc.groups)
			}
			for i := range groups {
				if !slices.Equal(groups[i], tc.groups[i]) {
					t.Errorf("group %d: runs %v, want %v", i, groups[i], tc.groups[i])
				}
			}
			if !slices.Equal(flagged, tc.flagged) {
				t.Errorf("flagged %v, want %v", flagged, tc.flagged)
			}
		})
	}
}

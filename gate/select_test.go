package gate

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/web/webtest"
)

func TestKeyOf(t *testing.T) {
	row := results.RunRow{Name: "bench clients=8 driver=sim rep=2", System: "sim", Workload: "ycsb/workloada", Model: "open", Clients: 8, Rate: 1000}
	k := KeyOf(row)
	if k.Matrix != "clients=8 driver=sim" || k.String() != "sim ycsb/workloada open/8 @1000/s clients=8 driver=sim" {
		t.Errorf("key %+v = %q", k, k)
	}
	row.Name = "bench clients=8 driver=sim rep=3"
	if KeyOf(row) != k {
		t.Error("repetitions are different configurations")
	}
	row.Name = "bench clients=16 driver=sim"
	if KeyOf(row) == k {
		t.Error("matrix values are ignored")
	}
}

func TestLoad(t *testing.T) {
	ctx := context.Background()
	s, err := results.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	add := func(hours int, tag, workload, status string) int64 {
		t.Helper()
		spec := webtest.Default(t0.Add(time.Duration(hours) * time.Hour))
		spec.Tags, spec.Workload, spec.Status, spec.FaultTo, spec.Measure, spec.Warmup, spec.NoEvents = []string{tag}, workload, status, 0, 6, 0, true
		r, err := webtest.Add(ctx, s, spec)
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	b1 := add(1, "main", "ycsb/workloada", "")
	b2 := add(2, "main", "ycsb/workloada", "")
	b3 := add(3, "main", "ycsb/workloada", "")
	add(4, "main", "ycsb/workloadc", "")                 // another workload
	failed := add(5, "main", "ycsb/workloada", "failed") // not finished
	fresh := add(6, "pr", "ycsb/workloada", "")
	later := add(7, "main", "ycsb/workloada", "") // after the run checked: not its history

	runIDs := func(g Group) (fresh, base []int64) { return ids(g.New), ids(g.Baseline) }
	for _, tt := range []struct {
		name     string
		sel      string
		base     spec.Baseline
		new, old []int64
	}{
		{"history", "tag:pr", spec.Baseline{History: 2}, []int64{fresh}, []int64{b3, b2}},
		{"all history", itoa(fresh), spec.Baseline{History: 10}, []int64{fresh}, []int64{b3, b2, b1}},
		{"tag", itoa(fresh), spec.Baseline{Tag: "main"}, []int64{fresh}, []int64{later, b3, b2, b1}},
		{"one run", itoa(fresh), spec.Baseline{ID: b1}, []int64{fresh}, []int64{b1}},
	} {
		groups, err := Load(ctx, s, tt.sel, tt.base)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		gotNew, gotOld := runIDs(groups[0])
		if len(groups) != 1 || !slices.Equal(gotNew, tt.new) || !slices.Equal(gotOld, tt.old) {
			t.Errorf("%s: %d groups, new %v base %v; want %v, %v", tt.name, len(groups), gotNew, gotOld, tt.new, tt.old)
		}
	}
	// The tag's runs in two configurations: each its own group and baseline.
	groups, err := Load(ctx, s, "tag:main", spec.Baseline{Tag: "pr"})
	if err != nil || len(groups) != 2 || len(groups[0].Baseline) != 1 || len(groups[1].Baseline) != 0 {
		t.Errorf("tag of two configurations: %+v, %v", groups, err)
	}

	for _, tt := range []struct {
		sel  string
		base spec.Baseline
		want string
	}{
		{"tag:nope", spec.Baseline{History: 1}, "tag:nope: no finished run has this tag"},
		{itoa(failed), spec.Baseline{History: 1}, "is failed: only finished runs are checked"},
		{"history:3", spec.Baseline{History: 1}, `runs to check "history:3": expected a run id or tag:NAME`},
		{"tag:pr", spec.Baseline{Tag: "pr"}, "the baseline holds only the runs being checked"},
	} {
		_, err := Load(ctx, s, tt.sel, tt.base)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.sel, err, tt.want)
		}
	}
	if _, err := Load(ctx, s, "999", spec.Baseline{History: 1}); !errors.Is(err, results.ErrNoRun) {
		t.Errorf("unknown run: %v", err)
	}
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }

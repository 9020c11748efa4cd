package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/workload/timeseries"
)

// workload=site.ycsb.workloads.TimeSeriesWorkload chooses YCSB's
// TimeSeriesWorkload (it used to run silently as the core workload), and
// workload=devops the devops ingest workload.
func TestTimeSeriesWorkloadIsChosen(t *testing.T) {
	cases := []struct {
		files []string
		props []string
		ops   string
	}{
		{[]string{"tsworkloada"}, nil, "READ UPDATE INSERT SCAN DELETE"},
		{[]string{"workloads/tsworkload_template"}, nil, "READ UPDATE INSERT SCAN DELETE"},
		{[]string{"devops"}, nil, "INSERT LASTPOINT RANGE GROUPBY"},
	}
	for _, tc := range cases {
		p, err := Resolve(Options{Driver: "null", PropFiles: tc.files, Props: tc.props})
		if err != nil {
			t.Fatalf("%v %v: %v", tc.files, tc.props, err)
		}
		if got := strings.Join(p.Workload.Ops(), " "); got != tc.ops {
			t.Errorf("%v %v: ops %s, want %s", tc.files, tc.props, got, tc.ops)
		}
	}
}

// Bad time-series properties are bad input (exit 2) naming the file, line,
// property and what is allowed, before anything runs.
func TestTimeSeriesBadInputNamesFileAndLine(t *testing.T) {
	f := filepath.Join(t.TempDir(), "ts.props")
	text := "workload=site.ycsb.workloads.TimeSeriesWorkload\ntagcount=4\ntagcardinality=1,2,3\n"
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		props []string
		want  string
	}{
		{nil, f + ":3: property tagcardinality=\"1,2,3\": expected 4 comma-separated integers"},
		{[]string{"tagcardinality=1,1,1,1", "timestampunits=WEEKS"}, "flag -p: property timestampunits=\"WEEKS\": expected a java.util.concurrent.TimeUnit: one of SECONDS"},
		{[]string{"tagcardinality=1,1,1,1", "querytimespan=10"}, "querytimespan=\"10\": expected 0 (a single timestamp) or at least timestampinterval (60)"},
		{[]string{"tagcardinality=1,1,1,1", "groupbyfunction=p50", "groupbykeys=0,0,0,1"}, "groupbyfunction=\"p50\": expected one of sum, avg, min, max, count"},
	}
	for _, tc := range cases {
		_, err := Resolve(Options{Driver: "null", PropFiles: []string{f}, Props: tc.props})
		if err == nil || !IsInput(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v (input %v), want bad input with %q", tc.props, err, IsInput(err), tc.want)
		}
	}
}

// YCSB's tsworkloada and the devops workload run end to end through the
// runner on embedded drivers: what they write is read back by their
// queries without errors, and ingest is stored as a headline metric.
func TestTimeseriesEndToEnd(t *testing.T) {
	cases := []struct {
		driver, file string
		props        []string
		metrics      []string
	}{
		{"pebble", "tsworkloada", []string{"recordcount=10240", "operationcount=3000"}, []string{"points_per_sec"}},
		{"sim", "tsworkloada", []string{"recordcount=4096", "operationcount=2000", "sim.latency=20us"}, []string{"points_per_sec"}},
		{"sqlite", "tsworkloada", []string{"recordcount=2048", "operationcount=500", "threadcount=2"}, []string{"points_per_sec"}},
		{"pebble", "devops", []string{"recordcount=3600", "operationcount=1500", "threadcount=2", "devops.hosts=20"}, []string{"points_per_sec", "values_per_sec"}},
		{"sqlite", "devops", []string{"recordcount=1200", "operationcount=300", "devops.hosts=10", "devops.batch=20"}, []string{"points_per_sec", "values_per_sec"}},
	}
	for _, tc := range cases {
		t.Run(tc.driver+"/"+tc.file, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "r.db")
			p, err := Resolve(Options{Driver: tc.driver, Store: store, PropFiles: []string{tc.file}, Props: tc.props, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			out, err := Execute(context.Background(), p, Hooks{})
			if err != nil || out.Status != StatusDone {
				t.Fatalf("status %v: %v", out, err)
			}
			sum, ok := out.Measured()
			if !ok {
				t.Fatal("no measure phase")
			}
			for _, o := range sum.Ops {
				if o.Count > 0 && o.Errors > 0 {
					t.Errorf("%s: %d of %d failed: %v", o.Op, o.Errors, o.Count, o.Classes)
				}
			}
			if len(sum.Ops) < 2 {
				t.Errorf("ops measured %v, want inserts and queries", sum.Ops)
			}
			got := map[string]float64{}
			for _, m := range out.Metrics {
				got[m.Name] = m.Value
			}
			for _, name := range tc.metrics {
				if !(got[name] > 0) {
					t.Errorf("metric %s = %v, want > 0 (metrics %v)", name, got[name], out.Metrics)
				}
			}
			s, err := results.OpenExisting(context.Background(), store)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			stored, err := s.RunMetrics(context.Background(), out.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if len(stored) != len(tc.metrics) || stored[0].Name != "points_per_sec" {
				t.Errorf("stored metrics %v, want %v", stored, tc.metrics)
			}
			if _, isTS := p.Workload.(*timeseries.TSWorkload); isTS != (tc.file == "tsworkloada") {
				t.Errorf("workload %T", p.Workload)
			}
		})
	}
}

// Workers would each write the same series and times: refused as input.
func TestTimeSeriesRefusesWorkers(t *testing.T) {
	for _, f := range []string{"tsworkloada", "devops"} {
		p, err := Resolve(Options{Driver: "null", PropFiles: []string{f}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Shares(2); err == nil || !IsInput(err) || !strings.Contains(err.Error(), "time-series") {
			t.Errorf("%s with 2 workers: %v, want bad input", f, err)
		}
	}
}

package gate

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/spec"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// config is a run's true figures; synth draws its seconds around them.
type config struct {
	tput, p99 float64 // per second, READ
	secs      int
}

// synth is a finished run of READ whose seconds scatter around c: 3 %
// noise on throughput, 5 % on p99, drawn from rng (seeded by the test).
func synth(rng *rand.Rand, id int64, c config) analysis.Run {
	var ivs []results.IntervalRow
	var count int64
	for s := range c.secs {
		n := int64(c.tput * (1 + 0.03*rng.NormFloat64()))
		p99 := int64(c.p99 * (1 + 0.05*rng.NormFloat64()))
		count += n
		for _, op := range []string{"READ", measure.OverallOp} {
			ivs = append(ivs, results.IntervalRow{Phase: measure.PhaseMeasure, T: time.Duration(s+1) * time.Second,
				Length: time.Second, Op: op, Count: n, P50US: p99 / 3, P95US: p99 / 2, P99US: p99, MeanUS: float64(p99) / 4})
		}
	}
	read := measure.OpSummary{Op: "READ", Count: count, Throughput: float64(count) / float64(c.secs),
		Response: measure.Stats{P99: int64(c.p99), P50: int64(c.p99 / 3)}}
	overall := read
	overall.Op = ""
	d := &results.RunDetail{
		RunRow: results.RunRow{ID: id, Status: results.StatusDone, Start: t0.Add(time.Duration(id) * time.Hour),
			System: "sim", Workload: "ycsb/workloada", Model: "closed", Clients: 4},
		Phases: []measure.Summary{{Phase: measure.PhaseMeasure, Ops: []measure.OpSummary{read}, Overall: overall}},
	}
	return analysis.NewRun(d, ivs)
}

func rules(t *testing.T, texts ...string) []spec.CheckRule {
	t.Helper()
	rs, err := Rules(texts)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func check(t *testing.T, base, fresh []analysis.Run, o Options) Report {
	t.Helper()
	g := Group{Key: KeyOf(fresh[0].Detail.RunRow), New: fresh, Baseline: base}
	rep, err := Decide([]Group{g}, o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A planted 20 % slowdown fails the gate every time; the same
// configuration passes it in at least 19 of 20 tries. Seconds are drawn
// from a seeded generator: the outcome is the same on every machine.
func TestGateSlowdownAndNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 29))
	same := config{tput: 1000, p99: 2000, secs: 20}
	slow := config{tput: 800, p99: 2400, secs: 20}
	o := Options{Rules: rules(t, "throughput<-5%", "READ.p99>+10%")}
	passes := 0
	for i := range 20 {
		base := synth(rng, 1, same)
		rep := check(t, []analysis.Run{base}, []analysis.Run{synth(rng, 2, slow)}, o)
		if rep.Failed() != 2 {
			t.Errorf("try %d: the 20%% slowdown failed %d of 2 rules: %+v", i, rep.Failed(), rep.Results)
		}
		for _, r := range rep.Results {
			if r.Status != Regressed || r.Stat.Lo > r.Stat.Rel || r.Stat.Hi < r.Stat.Rel {
				t.Errorf("try %d: %s: %s (%s), CI %s", i, r.Rule.Text, r.Status, r.Reason, r.Stat.FormatCI())
			}
		}
		if check(t, []analysis.Run{base}, []analysis.Run{synth(rng, 3, same)}, o).Failed() == 0 {
			passes++
		}
	}
	if passes < 19 {
		t.Errorf("two runs of the same configuration passed %d of 20 tries, want at least 19", passes)
	}
}

func TestGateStatuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	base := synth(rng, 1, config{tput: 1000, p99: 2000, secs: 20})
	for _, tt := range []struct {
		name  string
		fresh config
		rule  string
		want  Status
	}{
		{"faster", config{tput: 1200, p99: 2000, secs: 20}, "throughput<-5%", Improved},
		{"a little slower", config{tput: 950, p99: 2000, secs: 20}, "throughput<-10%", WithinLimit},
		{"slower", config{tput: 800, p99: 2000, secs: 20}, "throughput<-10%", Regressed},
		{"too short", config{tput: 500, p99: 2000, secs: 3}, "throughput<-5%", Inconclusive},
		{"p99 rule on a throughput drop", config{tput: 800, p99: 2000, secs: 20}, "p99>+10%", NoChange},
	} {
		rep := check(t, []analysis.Run{base}, []analysis.Run{synth(rng, 2, tt.fresh)}, Options{Rules: rules(t, tt.rule)})
		if r := rep.Results[0]; r.Status != tt.want {
			t.Errorf("%s: %s (%s), want %s", tt.name, r.Status, r.Reason, tt.want)
		}
	}
	// Without a baseline there is nothing to fail.
	if rep := check(t, nil, []analysis.Run{base}, Options{}); rep.Failed() != 0 || rep.Results[0].Status != NoBaseline || len(rep.Results) != len(DefaultRules) {
		t.Errorf("no baseline: %+v", rep.Results)
	}
	// An operation the baseline has and the new run lacks fails.
	upd := synth(rng, 4, config{tput: 1000, p99: 2000, secs: 20})
	upd.Summary.Ops[0].Op = "UPDATE"
	if rep := check(t, []analysis.Run{upd}, []analysis.Run{base}, Options{Rules: rules(t, "UPDATE.p99>+10%")}); rep.Results[0].Status != Missing || rep.Failed() != 1 {
		t.Errorf("missing operation: %+v", rep.Results[0])
	}
}

// Over a history, a change must also stand out from how much the baseline
// runs vary between themselves (z-score), as Conbench decides.
func TestGateHistory(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var steady, wild []analysis.Run
	for i, tput := range []float64{1000, 1010, 990, 1005} {
		steady = append(steady, synth(rng, int64(i+1), config{tput: tput, p99: 2000, secs: 20}))
	}
	for i, tput := range []float64{1000, 700, 1300, 850} {
		wild = append(wild, synth(rng, int64(i+10), config{tput: tput, p99: 2000, secs: 20}))
	}
	fresh := []analysis.Run{synth(rng, 20, config{tput: 850, p99: 2000, secs: 20})}
	o := Options{Rules: rules(t, "throughput<-5%")}
	r := check(t, steady, fresh, o).Results[0]
	if r.Status != Regressed || r.Z > -DefaultZ || r.Base < 990 || r.Base > 1010 {
		t.Errorf("steady history: %s (%s), z %v, base %v", r.Status, r.Reason, r.Z, r.Base)
	}
	if r := check(t, wild, fresh, o).Results[0]; r.Status != HistoryNoise || math.Abs(r.Z) >= DefaultZ {
		t.Errorf("wild history: %s (%s), z %v", r.Status, r.Reason, r.Z)
	}
	if r := check(t, steady[:2], fresh, o).Results[0]; !math.IsNaN(r.Z) || r.Status != Regressed {
		t.Errorf("two baseline runs: z %v (want none), %s", r.Z, r.Status)
	}
}

func TestGateBadRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	run := synth(rng, 1, config{tput: 1000, p99: 2000, secs: 10})
	_, err := Rules([]string{"throughput<-5%", "latency>10%"})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `--fail-on "latency>10%": unknown metric "latency": expected one of throughput, errors, mean, p50, p95, p99, max`) {
		t.Errorf("unknown metric: %v", err)
	}
	_, err = Decide([]Group{{New: []analysis.Run{run}, Baseline: []analysis.Run{run}}}, Options{Rules: rules(t, "SCAN.p99>+10%")})
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `no run has an operation "SCAN": expected one of OVERALL, READ`) {
		t.Errorf("unknown operation: %v", err)
	}
}

func TestOutputsParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	base := synth(rng, 1, config{tput: 1000, p99: 2000, secs: 20})
	fresh := synth(rng, 2, config{tput: 800, p99: 2000, secs: 20})
	g := Group{Key: KeyOf(fresh.Detail.RunRow), New: []analysis.Run{fresh}, Baseline: []analysis.Run{base}}
	rep, err := Decide([]Group{g}, Options{Rules: rules(t, "throughput<-5%", "p99>+10%")})
	if err != nil {
		t.Fatal(err)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Passed  bool
		Failed  int
		Results []map[string]any
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, js.String())
	}
	if doc.Passed || doc.Failed != 1 || len(doc.Results) != 2 || doc.Results[0]["status"] != "regressed" ||
		doc.Results[0]["unit"] != "ops/s" || doc.Results[0]["change_pct"].(float64) > -15 || doc.Results[1]["fail"] != false {
		t.Errorf("JSON:\n%s", js.String())
	}

	var ju bytes.Buffer
	if err := WriteJUnit(&ju, rep); err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(ju.Bytes(), &suites); err != nil {
		t.Fatalf("JUnit: %v\n%s", err, ju.String())
	}
	if !strings.Contains(ju.String(), JUnitMark) || suites.Tests != 2 || suites.Failures != 1 || len(suites.Suite) != 1 ||
		suites.Suite[0].Cases[0].Failure == nil || suites.Suite[0].Cases[1].Failure != nil ||
		suites.Suite[0].Cases[0].Name != "throughput<-5%" {
		t.Errorf("JUnit:\n%s", ju.String())
	}

	var bmf bytes.Buffer
	if err := WriteBMF(&bmf, []Group{g}); err != nil {
		t.Fatal(err)
	}
	var bench map[string]map[string]struct {
		Value *float64 `json:"value"`
		Low   *float64 `json:"lower_value"`
		High  *float64 `json:"upper_value"`
	}
	if err := json.Unmarshal(bmf.Bytes(), &bench); err != nil {
		t.Fatalf("BMF: %v\n%s", err, bmf.String())
	}
	read := bench["sim ycsb/workloada closed/4 READ"]
	tp := read["throughput"]
	if len(bench) != 2 || tp.Value == nil || *tp.Value != fresh.Summary.Ops[0].Throughput || *tp.Low > *tp.Value || *tp.High < *tp.Value ||
		read["latency-p99"].Value == nil || *read["latency-p99"].Value != 2000*1000 {
		t.Errorf("BMF:\n%s", bmf.String())
	}
}

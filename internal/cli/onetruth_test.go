package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web"
	"github.com/dbrig/dbrig/web/webtest"
)

// schema compiles one of the JSON Schemas the docs ship, each of them
// known by its $id so that they can refer to each other.
func schema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	dir := filepath.Join("..", "..", "docs", "reference", "schema")
	files, err := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas in %s: %v", dir, err)
	}
	c := jsonschema.NewCompiler()
	id := ""
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		fid, _ := doc.(map[string]any)["$id"].(string)
		if fid == "" {
			t.Fatalf("%s has no $id", f)
		}
		if err := c.AddResource(fid, doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if filepath.Base(f) == name {
			id = fid
		}
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	return s
}

// validate checks a JSON document against a schema and returns it decoded.
func validate(t *testing.T, s *jsonschema.Schema, doc string) map[string]any {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	if err := s.Validate(inst); err != nil {
		t.Fatalf("does not match %s: %v\n%s", s.Location, err, doc)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// storeOneTruthRun stores a run with a load phase, a fault (with a
// per-operation timeline), node metrics and TPC-C-like headline metrics.
func storeOneTruthRun(t *testing.T, ctx context.Context, path string) int64 {
	t.Helper()
	s := openStore(t, path)
	defer s.Close()
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	spec := webtest.Default(t0)
	spec.Timeline = true
	r, err := webtest.Add(ctx, s, spec)
	if err != nil {
		t.Fatal(err)
	}
	// The load phase: 40 batches of 25 records in 2 s, its events saying
	// how many records went in.
	resp, svc := measure.NewHistogram(), measure.NewHistogram()
	for i := int64(0); i < 40; i++ {
		if err := resp.RecordValue(900 + 37*i); err != nil {
			t.Fatal(err)
		}
		if err := svc.RecordValue(900 + 37*i); err != nil {
			t.Fatal(err)
		}
	}
	ls, le := t0.Add(-3*time.Second), t0.Add(-1*time.Second)
	load := measure.Summarize(measure.PhaseLoad, []measure.Interval{{Phase: measure.PhaseLoad, Start: ls, End: le,
		Ops: []measure.OpInterval{{Op: "load", Count: 40, Response: resp, Service: svc}}}}, nil)
	if err := s.AddPhase(ctx, r.ID, load); err != nil {
		t.Fatal(err)
	}
	for _, e := range []results.Event{
		{Time: ls, Kind: "phase_start", Name: measure.PhaseLoad, Detail: "records=1000 clients=1 batch=25"},
		{Time: le, Kind: "phase_end", Name: measure.PhaseLoad, Detail: "ops=40 errors=0 dropped=0 records=1000"},
	} {
		if err := s.AddEvent(ctx, r.ID, e); err != nil {
			t.Fatal(err)
		}
	}
	var ms []results.Metric
	for i := 1; i <= 10; i++ {
		at := t0.Add(time.Duration(i) * time.Second)
		ms = append(ms,
			results.Metric{Node: "node1", Time: at, CPUUser: float64(10 + i), CPUSys: 2.5, RSS: uint64(100+i) << 20, WriteBytes: uint64(i) << 16, CtxSwitches: uint64(100 * i), FDs: 30 + i},
			results.Metric{Node: "dbrig", Time: at, CPUUser: 40, CPUSys: 1, RSS: 50 << 20, CtxSwitches: 7})
	}
	if err := s.AddMetrics(ctx, r.ID, ms); err != nil {
		t.Fatal(err)
	}
	if err := s.AddRunMetrics(ctx, r.ID, []results.RunMetric{
		{Name: "tpmc", Value: 12345.6, Unit: "txn/min", Doc: "New-Order transactions committed per minute"},
		{Name: "consistency_ok", Value: 1, Doc: "1 passed, 0 failed"},
	}); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// csvRows reads a CSV export into maps keyed by its header.
func csvRows(t *testing.T, text string) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("csv: %v\n%s", err, text)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, c := range recs[0] {
			m[c] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// TestOneTruth renders one stored run through every surface — runs show,
// runs show --json, runs export (CSV and JSON), the HTML report and the
// dashboard's run page — and checks that they carry the same figures,
// and that the JSON matches the shipped schemas.
func TestOneTruth(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	id := storeOneTruthRun(t, ctx, store)
	ids := strconv.FormatInt(id, 10)
	run := func(args ...string) string {
		t.Helper()
		code, out, errOut := dbrig(t, ctx, append(args, "--store", store)...)
		if code != 0 {
			t.Fatalf("dbrig %v: exit %d\n%s", args, code, errOut)
		}
		return out
	}

	// The truth, as --json has it (and as the schema says it is).
	doc := validate(t, schema(t, "run.schema.json"), run("runs", "show", ids, "--json"))
	f := func(m any, path ...string) float64 {
		t.Helper()
		for _, p := range path {
			mm, ok := m.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %q", path, p)
			}
			m = mm[p]
		}
		v, ok := m.(float64)
		if !ok {
			t.Fatalf("%v = %v, not a number", path, m)
		}
		return v
	}
	read := doc["ops"].(map[string]any)["READ"]
	overall := doc["ops"].(map[string]any)["OVERALL"]
	if f(doc, "tpmc") != 12345.6 || doc["consistency"].(map[string]any)["ok"] != true {
		t.Errorf("tpmc %v, consistency %v", doc["tpmc"], doc["consistency"])
	}
	lp := doc["load_phase"]
	if f(lp, "records") != 1000 || f(lp, "batches") != 40 || f(lp, "records_per_s") != 500 || f(lp, "records_per_batch") != 25 {
		t.Errorf("load_phase = %v", lp)
	}
	impacts := doc["impacts"].([]any)
	if len(impacts) != 1 {
		t.Fatalf("impacts = %v", impacts)
	}
	im := impacts[0]
	if f(im, "unavailable_ms") != 2001 {
		t.Errorf("unavailable_ms = %v, want 2001 (the timeline's)", f(im, "unavailable_ms"))
	}
	nodes := doc["node_metrics"].([]any)
	if len(nodes) != 2 || nodes[0].(map[string]any)["node"] != "node1" {
		t.Fatalf("node_metrics = %v", nodes)
	}
	node1 := nodes[0]
	if f(node1, "cpu_mean_pct") != 18 || f(node1, "samples") != 10 {
		t.Errorf("node1 = %v", node1)
	}
	us := func(m any, k string) string { return format.MicrosInt(int64(f(m, k))) }
	window := func(w string) string { // p50 / p95 / p99 of a window
		return us(im, w+"_p50_us") + " / " + us(im, w+"_p95_us") + " / " + us(im, w+"_p99_us")
	}

	// The terminal.
	show := run("runs", "show", ids)
	for _, want := range []string{
		fmt.Sprintf("tpmc            %s", "12,346 txn/min"),
		"consistency_ok  passed",
		fmt.Sprintf("load phase: 1,000 records in 2.0s, %s records/s, 40 batches", format.Rate(f(lp, "records_per_s"))),
		fmt.Sprintf("%s per record", format.Micros(f(lp, "mean_us_per_record"))),
		window("baseline"), window("fault"), window("after"),
		fmt.Sprintf("%.1f%%", f(node1, "cpu_mean_pct")),
	} {
		if !strings.Contains(show, want) {
			t.Errorf("runs show lacks %q:\n%s", want, show)
		}
	}
	row := ""
	for _, l := range strings.Split(show, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "READ ") {
			row = strings.Join(strings.Fields(l), " ")
		}
	}
	wantRow := strings.Join([]string{"READ", format.Int(int64(f(read, "count"))), format.Int(int64(f(read, "errors"))),
		format.Rate(f(read, "throughput")), format.Micros(f(read, "mean_us")), us(read, "p50_us"), us(read, "p90_us"),
		us(read, "p95_us"), us(read, "p99_us"), us(read, "p999_us"), us(read, "max_us")}, " ")
	if row != wantRow {
		t.Errorf("runs show READ row %q, JSON says %q", row, wantRow)
	}

	// CSV export: the same numbers, exactly.
	sums := csvRows(t, run("runs", "export", ids, "--format", "csv", "--what", "summaries"))
	found := 0
	for _, r := range sums {
		var want any
		switch {
		case r["phase"] == "measure" && r["op"] == "READ":
			want = read
		case r["phase"] == "measure" && r["op"] == "OVERALL":
			want = overall
		default:
			continue
		}
		found++
		for _, k := range []string{"count", "errors", "error_rate", "throughput", "mean_us", "p50_us", "p99_us", "p999_us", "max_us"} {
			if got, err := strconv.ParseFloat(r[k], 64); err != nil || got != f(want, k) {
				t.Errorf("export %s %s = %q, JSON %v", r["op"], k, r[k], f(want, k))
			}
		}
	}
	if found != 2 {
		t.Errorf("export summaries: %d of READ and OVERALL found", found)
	}
	imRows := csvRows(t, run("runs", "export", ids, "--what", "impacts"))
	for _, k := range []string{"baseline_p50_us", "fault_p95_us", "after_p99_us", "unavailable_ms", "throughput_change_pct"} {
		if got, _ := strconv.ParseFloat(imRows[0][k], 64); len(imRows) != 1 || got != f(im, k) {
			t.Errorf("export impacts %s = %q, JSON %v", k, imRows[0][k], f(im, k))
		}
	}
	wantRec := ""
	if rec, ok := im.(map[string]any)["recovery_ms"].(float64); ok {
		wantRec = strconv.FormatFloat(rec, 'f', -1, 64)
	}
	if cut, _ := im.(map[string]any)["recovery_cut"].(string); imRows[0]["recovery_cut"] != cut || (wantRec == "" && cut == "") {
		t.Errorf("export impacts recovery_cut = %q, JSON %q (recovery_ms %q)", imRows[0]["recovery_cut"], cut, wantRec)
	}
	if imRows[0]["recovery_ms"] != wantRec {
		t.Errorf("export impacts recovery_ms = %q, JSON %v", imRows[0]["recovery_ms"], im.(map[string]any)["recovery_ms"])
	}
	ivs := csvRows(t, run("runs", "export", ids, "--what", "intervals"))
	if len(ivs) == 0 || ivs[0]["run_id"] != ids || ivs[0]["t_s"] == "" {
		t.Errorf("export intervals: %v", ivs[:min(1, len(ivs))])
	}
	ej := validate(t, schema(t, "export.schema.json"), run("runs", "export", ids, "--format", "json", "--what", "summaries"))
	if rows := ej["rows"].([]any); len(rows) != len(sums) {
		t.Errorf("export json has %d rows, csv %d", len(rows), len(sums))
	}

	// The HTML report and the dashboard's run page.
	out := filepath.Join(dir, "r.html")
	run("report", ids, "-o", out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	srv := openStore(t, store)
	defer srv.Close()
	rec := httptest.NewRecorder()
	web.NewServer(srv).ServeHTTP(rec, httptest.NewRequest("GET", "/run/"+ids, nil))
	page, _ := io.ReadAll(rec.Body)
	for name, body := range map[string]string{"report": string(b), "dashboard": string(page)} {
		body = html.UnescapeString(body)
		m := regexp.MustCompile(`(?s)<tr data-op="READ">(.*?)</tr>`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("%s: no READ row", name)
		}
		var cells []string
		for _, c := range regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(m[1], -1) {
			cells = append(cells, c[1])
		}
		if got := strings.Join(cells[:11], " "); got != wantRow {
			t.Errorf("%s READ row %q, JSON says %q", name, got, wantRow)
		}
		for _, want := range []string{">12,346 txn/min<", ">passed<", ">" + window("baseline") + "<", ">" + window("fault") + "<", ">" + window("after") + "<",
			format.Rate(f(lp, "records_per_s")) + " records/s", fmt.Sprintf(">%.1f%%<", f(node1, "cpu_mean_pct")),
			">" + format.Millis(int64(f(im, "unavailable_ms"))) + "<"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
}

// dbrig run --json carries the load phase and matches the schema.
func TestRunJSONLoadPhase(t *testing.T) {
	ctx := context.Background()
	store := filepath.Join(t.TempDir(), "r.db")
	code, out, errOut := dbrig(t, ctx, "run", "--driver", "sim", "--store", store, "--quiet", "--json",
		"-p", "recordcount=600", "-p", "operationcount=300", "--batch", "50")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	doc := validate(t, schema(t, "run.schema.json"), out)
	lp, ok := doc["load_phase"].(map[string]any)
	if !ok || lp["records"] != 600.0 || lp["batches"] != 12.0 || lp["records_per_batch"] != 50.0 {
		t.Errorf("load_phase = %v", doc["load_phase"])
	}
	if doc["schema_version"] != 2.0 || len(doc["phases"].([]any)) != 1 {
		t.Errorf("schema_version %v, phases %v", doc["schema_version"], doc["phases"])
	}

	// dbrig load --json: the load phase is the one shown, and load_phase too.
	code, out, errOut = dbrig(t, ctx, "load", "--driver", "sim", "--store", store, "--quiet", "--json", "-p", "recordcount=400", "--batch", "100")
	if code != 0 {
		t.Fatalf("load: exit %d\n%s", code, errOut)
	}
	doc = validate(t, schema(t, "run.schema.json"), out)
	lp, ok = doc["load_phase"].(map[string]any)
	if !ok || lp["records"] != 400.0 || lp["batches"] != 4.0 || doc["phase"] != "load" {
		t.Errorf("load --json: phase %v, load_phase %v", doc["phase"], doc["load_phase"])
	}
}

// Unknown export formats and contents are bad input that names the valid ones.
func TestRunsExportBadInput(t *testing.T) {
	ctx := context.Background()
	store := filepath.Join(t.TempDir(), "r.db")
	storeOneTruthRun(t, ctx, store)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml"}, "expected one of csv, json"},
		{[]string{"--what", "everything"}, "expected one of summaries, intervals, impacts, steps"},
		{[]string{"--what", "steps"}, "rating:ID"},
	} {
		code, _, errOut := dbrig(t, ctx, append([]string{"runs", "export", "1", "--store", store}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// -o never replaces a file dbrig did not write without --force.
	out := filepath.Join(t.TempDir(), "mine.csv")
	writeFile(t, out, "keep me\n")
	if code, _, _ := dbrig(t, ctx, "runs", "export", "1", "--store", store, "-o", out); code != 2 {
		t.Errorf("-o over a user's file: exit %d, want 2", code)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep me\n" {
		t.Errorf("the user's file was changed: %q", b)
	}
	if code, _, errOut := dbrig(t, ctx, "runs", "export", "1", "--store", store, "-o", out, "--force"); code != 0 {
		t.Fatalf("--force: exit %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(out); !strings.HasPrefix(string(b), "run_id,phase,op,") {
		t.Errorf("-o wrote %q", b)
	}
}

// runs export rating:ID --what steps writes each step as stored.
func TestRunsExportSteps(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	s := openStore(t, path)
	rid, err := s.CreateRating(ctx, results.Rating{Name: "r", System: "sim", Workload: "ycsb/workloada", SLA: "p99 < 5ms", By: "rate"})
	if err != nil {
		t.Fatal(err)
	}
	steps := []results.RatingStep{
		{Kind: "search", Target: 1000, Achieved: 998.5, Pass: true, RunID: 7, Seconds: 10,
			Terms: []results.RatingTerm{{Term: "p99", Measured: 3.5, Limit: 5, Unit: "ms", Pass: true}}},
		{Kind: "search", Target: 2000, Achieved: 1500, Reason: "p99 12ms > 5ms", Seconds: 10,
			Terms: []results.RatingTerm{{Term: "p99", Measured: 12, Limit: 5, Unit: "ms"}}},
	}
	for i, st := range steps {
		if err := s.AddRatingStep(ctx, rid, i+1, st); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	code, out, errOut := dbrig(t, ctx, "runs", "export", fmt.Sprintf("rating:%d", rid), "--what", "steps", "--store", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := csvRows(t, out)
	if len(rows) != 2 || rows[0]["target"] != "1000" || rows[0]["achieved"] != "998.5" || rows[0]["pass"] != "true" || rows[0]["run_id"] != "7" ||
		rows[0]["terms"] != "p99 3.5/5 ms pass" || rows[1]["pass"] != "false" || rows[1]["reason"] != "p99 12ms > 5ms" || rows[1]["run_id"] != "" {
		t.Errorf("steps = %v", rows)
	}
	code, out, _ = dbrig(t, ctx, "runs", "export", fmt.Sprintf("rating:%d", rid), "--what", "steps", "--format", "json", "--store", path)
	if code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	validate(t, schema(t, "export.schema.json"), out)
}

// dbrig bench --json: every run is a run document of the schema, with its
// matrix values and the same figures `runs show --json` gives of it.
func TestBenchJSONSchema(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := filepath.Join(dir, "r.db")
	exp := filepath.Join(dir, "sweep.yaml")
	writeFile(t, exp, `name: sweep
system: {driver: sim}
dataset: {records: 300}
workload: {files: [workloada], props: {operationcount: "200"}}
load: {model: closed, clients: 1, duration: 2s}
matrix:
  clients: [1, 2]
`)
	code, out, errOut := dbrig(t, ctx, "bench", exp, "--store", store, "--quiet", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	doc := validate(t, schema(t, "bench.schema.json"), out)
	runs := doc["runs"].([]any)
	if len(runs) != 2 {
		t.Fatalf("runs = %v", runs)
	}
	for i, r := range runs {
		rm := r.(map[string]any)
		if rm["matrix"].(map[string]any)["load.clients"] != strconv.Itoa(i+1) {
			t.Errorf("run %d matrix %v", i, rm["matrix"])
		}
		lp, ok := rm["load_phase"].(map[string]any)
		if !ok || lp["records"] != 300.0 {
			t.Errorf("run %d load_phase %v", i, rm["load_phase"])
		}
		id := strconv.FormatInt(int64(rm["run_id"].(float64)), 10)
		code, show, _ := dbrig(t, ctx, "runs", "show", id, "--json", "--store", store)
		if code != 0 {
			t.Fatalf("runs show %s: exit %d", id, code)
		}
		stored := validate(t, schema(t, "run.schema.json"), show)
		if stored["experiment"] != "sweep" || stored["matrix"].(map[string]any)["clients"] != strconv.Itoa(i+1) {
			t.Errorf("stored run %s: experiment %v matrix %v", id, stored["experiment"], stored["matrix"])
		}
		for _, k := range []string{"count", "errors", "p50_us", "p99_us", "max_us"} {
			a := rm["ops"].(map[string]any)["OVERALL"].(map[string]any)[k]
			b := stored["ops"].(map[string]any)["OVERALL"].(map[string]any)[k]
			if a != b {
				t.Errorf("run %s OVERALL %s: bench %v, stored %v", id, k, a, b)
			}
		}
	}
}

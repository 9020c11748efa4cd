package timeseries

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// props builds properties from the lines of a property file named t.props.
func props(t testing.TB, lines ...string) *spec.Props {
	t.Helper()
	p := spec.NewProps()
	if err := p.Load("t.props", strings.NewReader(strings.Join(lines, "\n"))); err != nil {
		t.Fatal(err)
	}
	return p
}

// base is a small, fully determined time series: 4 metrics × 1·2·3 tags.
var base = []string{
	"workload=site.ycsb.workloads.TimeSeriesWorkload", "fieldcount=4", "fieldlength=4",
	"tagcount=3", "tagcardinality=1,2,3", "tagkeylength=2", "tagvaluelength=3",
	"insertstart=1000000", "timestampinterval=60", "delayedSeries=0", "randomtimeseriesorder=false",
	"recordcount=240",
}

func newTS(t testing.TB, extra ...string) *TSWorkload {
	t.Helper()
	w, err := New(props(t, append(append([]string(nil), base...), extra...)...))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// loadAll runs every client's load into db and returns the keys in order.
func loadAll(t testing.TB, w *TSWorkload, db driver.DB, seed int64, batch int) []string {
	t.Helper()
	var keys []string
	for id := 0; id < w.threads; id++ {
		c := w.NewClient(id, seed)
		for {
			n, err := c.Load(context.Background(), db, batch)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
	}
	if m, ok := db.(*memDB); ok {
		for _, c := range m.log {
			keys = append(keys, c.key)
		}
	} else if b, ok := db.(batchDB); ok {
		for _, c := range b.log {
			keys = append(keys, c.key)
		}
	}
	return keys
}

// splitKey returns the series and the time of a record key.
func splitKey(t testing.TB, key string) (string, int64) {
	t.Helper()
	i := strings.LastIndex(key, ":YCSBTS=")
	if i < 0 {
		t.Fatalf("key %q has no :YCSBTS=", key)
	}
	ts, err := strconv.ParseInt(key[i+len(":YCSBTS="):], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return key[:i], ts
}

func TestLoadIsDeterministicForASeed(t *testing.T) {
	w := newTS(t, "valuetype=mixednumbers", "sparsity=0.3", "randomwritetimestamporder=true",
		"readproportion=0.3", "updateproportion=0.2", "insertproportion=0.2", "scanproportion=0.2", "deleteproportion=0.1", "querytimespan=300")
	run := func(seed int64) ([]string, map[string]driver.Record) {
		db := newMemDB()
		keys := loadAll(t, w, db, seed, 7)
		return keys, db.data
	}
	k1, d1 := run(42)
	k2, d2 := run(42)
	_, d3 := run(43)
	if strings.Join(k1, "\n") != strings.Join(k2, "\n") {
		t.Fatal("the same seed wrote other keys or another order")
	}
	same, differ := true, false
	for k, r := range d1 {
		if fmt.Sprint(r) != fmt.Sprint(d2[k]) {
			same = false
		}
		if r3, ok := d3[k]; !ok || fmt.Sprint(r3) != fmt.Sprint(r) {
			differ = true
		}
	}
	if !same || !differ {
		t.Errorf("same seed same records: %v (want true); another seed differs: %v (want true)", same, differ)
	}
	// The run phase too: the same operations, keys and scan lengths.
	ops := func(seed int64) string {
		db := newMemDB()
		loadAll(t, w, db, 1, 7)
		db.log = nil
		c := w.NewClient(0, seed)
		var b strings.Builder
		for i := 0; i < 300; i++ {
			op, _ := c.Do(context.Background(), db)
			fmt.Fprint(&b, op, " ")
		}
		return b.String() + fmt.Sprint(db.log)
	}
	if ops(5) != ops(5) || ops(5) == ops(6) {
		t.Error("run-phase operations are not a function of the seed")
	}
}

func TestSeriesAndCardinalities(t *testing.T) {
	cases := []struct {
		card   string
		tags   int
		series int
	}{
		{"1,2,3", 3, 4 * 6},
		{"4", 1, 4 * 4},
		{"2,2,2,2", 4, 4 * 16},
		{"1,1", 2, 4},
	}
	for _, tc := range cases {
		t.Run(tc.card, func(t *testing.T) {
			w := newTS(t, "tagcount="+strconv.Itoa(tc.tags), "tagcardinality="+tc.card,
				"recordcount="+strconv.Itoa(tc.series*3))
			if w.Series() != int64(tc.series) {
				t.Fatalf("Series() = %d, want %d", w.Series(), tc.series)
			}
			db := newMemDB()
			keys := loadAll(t, w, db, 1, 1)
			series := map[string]int{}
			perTag := make([]map[string]bool, tc.tags)
			for i := range perTag {
				perTag[i] = map[string]bool{}
			}
			for _, k := range keys {
				s, _ := splitKey(t, k)
				series[s]++
				parts := strings.Split(s, ":")[1:]
				if len(parts) != tc.tags {
					t.Fatalf("key %q: %d tags, want %d", k, len(parts), tc.tags)
				}
				for i, p := range parts {
					perTag[i][p] = true
				}
			}
			if len(series) != tc.series {
				t.Errorf("%d series written, want %d", len(series), tc.series)
			}
			for s, n := range series {
				if n != 3 {
					t.Errorf("series %s has %d points, want 3 (one per interval)", s, n)
				}
			}
			for i, c := range strings.Split(tc.card, ",") {
				if want, _ := strconv.Atoi(c); len(perTag[i]) != want {
					t.Errorf("tag %d has %d values, want %d", i, len(perTag[i]), want)
				}
			}
		})
	}
}

func TestTimestampsUnitsAndOrder(t *testing.T) {
	cases := []struct {
		name          string
		extra         []string
		first, step   int64
		inOrder       bool
		intervalsUsed int
	}{
		{"seconds", []string{"timestampunits=SECONDS", "timestampinterval=60"}, 1000000, 60, true, 10},
		{"milliseconds", []string{"timestampunits=milliseconds", "timestampinterval=250"}, 1000000, 250, true, 10},
		{"minutes are written as seconds", []string{"timestampunits=MINUTES", "timestampinterval=5"}, 60000000, 300, true, 10},
		{"nanoseconds", []string{"timestampunits=NANOSECONDS", "timestampinterval=1000"}, 1000000, 1000, true, 10},
		{"random order", []string{"randomwritetimestamporder=true"}, 1000000, 60, false, 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newTS(t, append([]string{"recordcount=240", "fieldcount=1", "tagcardinality=2,3,4"}, tc.extra...)...)
			keys := loadAll(t, w, newMemDB(), 5, 10)
			seen := map[int64]bool{}
			prev, ordered := int64(-1), true
			for _, k := range keys {
				_, ts := splitKey(t, k)
				if (ts-tc.first)%tc.step != 0 || ts < tc.first {
					t.Fatalf("timestamp %d is not %d + a multiple of %d", ts, tc.first, tc.step)
				}
				if ts < prev {
					ordered = false
				}
				prev = ts
				seen[ts] = true
			}
			if ordered != tc.inOrder {
				t.Errorf("timestamps in order: %v, want %v", ordered, tc.inOrder)
			}
			if len(seen) != tc.intervalsUsed {
				t.Errorf("%d intervals written, want %d (240 points over 24 series)", len(seen), tc.intervalsUsed)
			}
		})
	}
}

func TestSparsitySkipsSeries(t *testing.T) {
	dense := loadAll(t, newTS(t, "sparsity=0", "recordcount=480"), newMemDB(), 3, 10)
	sparse := loadAll(t, newTS(t, "sparsity=0.9", "recordcount=480"), newMemDB(), 3, 10)
	span := func(keys []string) int64 {
		lo, hi := int64(1<<62), int64(0)
		for _, k := range keys {
			_, ts := splitKey(t, k)
			lo, hi = min(lo, ts), max(hi, ts)
		}
		return (hi-lo)/60 + 1
	}
	if len(dense) != 480 || len(sparse) != 480 {
		t.Fatalf("points written %d and %d, want 480 each", len(dense), len(sparse))
	}
	// 24 series: dense needs 20 intervals for 480 points; skipping series
	// spreads the same points over more time.
	if d, s := span(dense), span(sparse); d != 20 || s <= 2*d {
		t.Errorf("intervals covered: dense %d (want 20), sparse %d (want > %d)", d, s, 2*d)
	}
}

func TestDelayedSeriesWriteBehind(t *testing.T) {
	w := newTS(t, "delayedseries=0.5", "delayedintervals=3", "recordcount=240", "fieldcount=2")
	// 2 metrics × 6 = 12 series; the first half by series number lag by
	// (number mod 3) intervals behind the writer.
	c := w.NewClient(0, 9).(*tsClient)
	behind := map[int64]bool{}
	for i := 0; i < 120; i++ {
		writer := w.ts(&c.load)
		p := c.next(&c.load, true, &c.vbuf)
		lag := (writer - p.ts) / w.interval
		behind[lag] = true
		if lag < 0 || lag > 2 {
			t.Fatalf("point %d written %d intervals behind, want 0 to 2", i, lag)
		}
	}
	if !behind[1] || !behind[2] || !behind[0] {
		t.Errorf("lags seen %v, want 0, 1 and 2", behind)
	}
}

func TestQueriesSpanAndFindLoadedPoints(t *testing.T) {
	cases := []struct {
		name  string
		extra []string
		n     int // points per series a read scans
	}{
		{"point reads", []string{"querytimespan=0"}, 0},
		{"an hour", []string{"querytimespan=3600"}, 61},
		{"group-by and downsampling", []string{"querytimespan=600", "groupbyfunction=SUM", "groupbykeys=0,1,0", "downsamplingfunction=max", "downsamplinginterval=300"}, 11},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newTS(t, append([]string{"recordcount=2400", "readproportion=1", "updateproportion=0"}, tc.extra...)...)
			db := newMemDB()
			loadAll(t, w, db, 1, 50)
			db.log = nil
			c := w.NewClient(0, 2)
			for i := 0; i < 200; i++ {
				if op, err := c.Do(context.Background(), db); err != nil || op != OpRead {
					t.Fatalf("op %d: %v", op, err)
				}
			}
			last := w.start + (w.maxOffsets-2)*w.interval
			for _, cl := range db.log {
				_, ts := splitKey(t, cl.key)
				if ts < w.start || ts > last {
					t.Fatalf("query starts at %d, outside the loaded [%d, %d]", ts, w.start, last)
				}
				switch {
				case tc.n == 0 && cl.op != "read":
					t.Fatalf("a point query made a %s", cl.op)
				case tc.n > 0 && (cl.op != "scan" || cl.n != tc.n):
					t.Fatalf("%s of %d, want scans of %d points", cl.op, cl.n, tc.n)
				}
			}
			if strings.Contains(tc.name, "group") {
				// grouped by the tag of cardinality 2: two series per read
				if got := len(db.log); got != 400 {
					t.Errorf("%d scans for 200 reads, want 400", got)
				}
			}
		})
	}
}

func TestRangeScanReturnsTheSeries(t *testing.T) {
	w := newTS(t, "recordcount=2400", "querytimespan=600")
	db := newMemDB()
	loadAll(t, w, db, 1, 100)
	c := w.NewClient(0, 3).(*tsClient)
	c.use(db)
	for i := 0; i < 50; i++ {
		from, to := c.query(true)
		var b buckets
		b.reset(from, to, 0)
		found, err := c.codec.scanSeries(context.Background(), db, w.table, &c.pt, from, to, 11, w.valueKey, &b)
		if err != nil {
			t.Fatal(err)
		}
		// 2400 points over 24 series: intervals 0 to 99 are loaded; a
		// query may reach past them, as in YCSB.
		want := (min(to, w.start+99*w.interval)-from)/w.interval + 1
		if int64(found) != want || b.accs[0].n != want {
			t.Fatalf("range [%d, %d] of %s found %d points, want %d (every loaded interval)", from, to, c.pt.measurement, found, want)
		}
	}
}

func TestRunInsertsFollowTheLoad(t *testing.T) {
	for _, extra := range [][]string{nil, {"sparsity=0.5"}, {"randomwritetimestamporder=true"}, {"delayedseries=0.3", "delayedintervals=4"}} {
		w := newTS(t, append([]string{"recordcount=500", "insertproportion=1", "readproportion=0", "updateproportion=0", "threadcount=2"}, extra...)...)
		db := newMemDB()
		loadAll(t, w, db, 1, 10)
		for id := 0; id < 2; id++ {
			c := w.NewClient(id, 7)
			for i := 0; i < 300; i++ {
				if _, err := c.Do(context.Background(), db); err != nil {
					t.Fatalf("%v: run-phase insert %d: %v (it must not rewrite a loaded point)", extra, i, err)
				}
			}
		}
	}
}

func TestLayouts(t *testing.T) {
	for _, layout := range []string{"fields", "line"} {
		w := newTS(t, "timeseries.layout="+layout, "recordcount=24", "valuetype=integers")
		db := newMemDB()
		loadAll(t, w, db, 1, 1)
		for k, r := range db.data {
			series, ts := splitKey(t, k)
			parts := strings.Split(series, ":")
			switch layout {
			case "fields":
				if string(r["YCSBTS"]) != strconv.FormatInt(ts, 10) || len(r) != 3+2 {
					t.Fatalf("record %v of %s: want the 3 tags, YCSBTS and YCSBV", r, k)
				}
			case "line":
				line := string(r["field0"])
				want := parts[0] + "," + strings.ReplaceAll(strings.Join(parts[1:], ","), ":", ",") + " YCSBV="
				if len(r) != 1 || !strings.HasPrefix(line, want) || !strings.HasSuffix(line, " "+strconv.FormatInt(ts, 10)) {
					t.Fatalf("line %q of %s: want %q…%d", line, k, want, ts)
				}
			}
		}
	}
}

func TestDataIntegrityVerifiesReads(t *testing.T) {
	w := newTS(t, "dataintegrity=true", "valuetype=integers", "recordcount=2400", "readproportion=1", "updateproportion=0")
	db := newMemDB()
	loadAll(t, w, db, 1, 10)
	c := w.NewClient(0, 1)
	for i := 0; i < 100; i++ {
		if _, err := c.Do(context.Background(), db); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range db.data { // corrupt every value: reads must fail
		r["YCSBV"] = []byte("12345")
	}
	if _, err := c.Do(context.Background(), db); err == nil || !strings.Contains(err.Error(), "dataintegrity") {
		t.Errorf("read of a corrupted point: %v, want a dataintegrity error", err)
	}
}

func TestBadPropertiesNameTheProperty(t *testing.T) {
	cases := []struct {
		set      string
		key      string
		wantText string
	}{
		{"tagcardinality=1,2", "tagcardinality", "3 comma-separated integers"},
		{"tagcardinality=1,2,3,4", "tagcardinality", "tagcount=3"},
		{"tagcardinality=1,0,3", "tagcardinality", ">= 1"},
		{"timestampunits=FORTNIGHTS", "timestampunits", "SECONDS, MILLISECONDS"},
		{"querytimespan=30", "querytimespan", "at least timestampinterval (60)"},
		{"groupbyfunction=median", "groupbyfunction", "sum, avg, min, max, count"},
		{"downsamplingfunction=p99", "downsamplingfunction", "sum, avg, min, max, count"},
		{"groupbyfunction=sum\ngroupbykeys=1,0", "groupbykeys", "3 comma-separated 0s and 1s"},
		{"downsamplingfunction=avg\ndownsamplinginterval=60", "downsamplinginterval", "> timestampinterval"},
		{"threadcount=5", "fieldcount", ">= threadcount (5)"},
		{"readmodifywriteproportion=0.1", "readmodifywriteproportion", "no read-modify-write"},
		{"valuetype=strings", "valuetype", "floats, integers"},
		{"requestdistribution=latest", "requestdistribution", "no latest"},
		{"sparsity=1.5", "sparsity", "from 0 to"},
		{"delayedSeries=0.2\ndelayedIntervals=0", "delayedIntervals", ">= 1"},
		{"insertstart=10\ndelayedseries=0.1", "insertstart", "delayed series"},
		{"dataintegrity=true\nvaluetype=floats", "valuetype", "integers"},
		{"tagcardinality=16777216,16777216,16777216", "tagcardinality", "at most 2^40 series"},
	}
	for _, tc := range cases {
		t.Run(tc.set, func(t *testing.T) {
			lines := append(append([]string(nil), base...), strings.Split(tc.set, "\n")...)
			_, err := New(props(t, lines...))
			var pe *spec.PropError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a *spec.PropError", err)
			}
			if pe.Key != tc.key || !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("error %q (key %s), want key %s and %q", err, pe.Key, tc.key, tc.wantText)
			}
			if !strings.HasPrefix(err.Error(), "t.props:") {
				t.Errorf("error %q does not start with the file and line", err)
			}
		})
	}
	// tagcount alone disagreeing with the default cardinalities names tagcount.
	_, err := New(props(t, "workload=site.ycsb.workloads.TimeSeriesWorkload", "tagcount=3"))
	var pe *spec.PropError
	if !errors.As(err, &pe) || pe.Key != "tagcount" {
		t.Errorf("tagcount=3 with the default tagcardinality: %v, want an error on tagcount", err)
	}
}

func TestBuiltinFilesResolve(t *testing.T) {
	for _, name := range BuiltinNames() {
		b, ok := Builtin("workloads/" + name)
		if !ok {
			t.Fatalf("%s not built in", name)
		}
		p := spec.NewProps()
		if err := p.Load(name, strings.NewReader(string(b))); err != nil {
			t.Fatal(err)
		}
		w, ok, err := Choose(p)
		if !ok || err != nil {
			t.Fatalf("%s: chosen %v, %v", name, ok, err)
		}
		if w.LoadCount() == 0 {
			t.Errorf("%s loads nothing", name)
		}
	}
	b, _ := Builtin("tsworkloada")
	if !strings.Contains(string(b), "workload=site.ycsb.workloads.TimeSeriesWorkload") || !strings.Contains(string(b), "querytimespan=3600") {
		t.Error("tsworkloada is not YCSB's")
	}
}

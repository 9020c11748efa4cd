package experiment

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/driver/influxdb"
	"github.com/dbrig/dbrig/driver/victoriametrics"
	"github.com/dbrig/dbrig/internal/testenv"
)

// verifyPointsCase writes 3 series × 40 points through the tracker, one
// more batch that fails (uncertain), has the store lose points behind the
// tracker's back with lose, and checks the read-back counts them.
func verifyPointsCase(t *testing.T, db driver.DB, lose func(ctx context.Context, host string, from, to int64) int64) {
	ctx := context.Background()
	if err := db.(driver.Resetter).Reset(ctx); err != nil {
		t.Fatal(err)
	}
	tr := newTracker(db)
	w, ok := tr.wrap().(driver.Points)
	if !ok {
		t.Fatalf("the tracker of %T hides driver.Points", db)
	}
	const base, step = int64(1_600_000_000e9), int64(10e9)
	var pts []driver.Point
	for _, h := range []string{"h1", "h2", "h3"} {
		for i := int64(0); i < 40; i++ {
			pts = append(pts, driver.Point{Measurement: "cpu", Tags: []driver.Tag{{Key: "host", Value: h}}, Time: base + i*step,
				Fields: []driver.Field{{Name: "usage", Value: []byte(strconv.FormatInt(i, 10))}, {Name: "idle", Value: []byte("1")}}})
		}
	}
	if err := w.WritePoints(ctx, "usertable", pts); err != nil {
		t.Fatal(err)
	}
	failed := []driver.Point{{Measurement: "cpu", Tags: []driver.Tag{{Key: "host", Value: "h4"}}, Time: base,
		Fields: []driver.Field{{Name: "usage", Value: []byte("1")}}}}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := w.WritePoints(cctx, "usertable", failed); err == nil {
		t.Fatal("a write with a cancelled context was acknowledged")
	}
	lost := lose(ctx, "h2", base+5*step, base+9*step)
	v := tr.verify(ctx, 5*time.Second)
	if v.InsertsAcked != 120 || v.LostInserts != lost || v.Uncertain != 1 || v.Unreadable != 0 {
		t.Errorf("verify: %+v; want 120 acknowledged, %d lost, 1 uncertain", v, lost)
	}
}

func TestVerifyPointsInfluxDB(t *testing.T) {
	u := testenv.Need(t, "DBRIG_INFLUXDB_URL")
	db := drivertest.Open(t, influxdb.Open, driver.Config{Props: drivertest.Props("influxdb.url", u, "influxdb.db", "dbrig_tsverify"), Dir: t.TempDir()})
	verifyPointsCase(t, db, func(ctx context.Context, host string, from, to int64) int64 {
		q := driver.Query{Measurement: "cpu", Series: [][]driver.Tag{{{Key: "host", Value: host}}}, From: from, To: to}
		if err := db.(driver.PointDeleter).DeletePoints(ctx, "usertable", q); err != nil {
			t.Fatal(err)
		}
		return 5
	})
}

func TestVerifyPointsVictoriaMetrics(t *testing.T) {
	u := testenv.Need(t, "DBRIG_VICTORIAMETRICS_URL")
	db := drivertest.Open(t, victoriametrics.Open, driver.Config{Props: drivertest.Props("victoriametrics.url", u), Dir: t.TempDir()})
	verifyPointsCase(t, db, func(ctx context.Context, host string, _, _ int64) int64 {
		// VictoriaMetrics deletes whole series only: all 40 points of host.
		if err := db.(driver.PointsFlusher).Flush(ctx); err != nil {
			t.Fatal(err)
		}
		v := url.Values{"match[]": {`cpu_usage{host="` + host + `"}`}}
		resp, err := http.PostForm(u+"/api/v1/admin/tsdb/delete_series", v)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("delete_series: %s", resp.Status)
		}
		return 40
	})
}

// A point read back at a coarser precision is not lost; one that is
// absent is.
func TestMissingPointsPrecision(t *testing.T) {
	times := []int64{1_600_000_000_123_456_789, 1_600_000_001_000_000_000, 1_600_000_002_500_000_000}
	cases := []struct {
		got  []int64
		want int64
	}{
		{times, 0},
		{[]int64{1_600_000_000_123_000_000, 1_600_000_001_000_000_000, 1_600_000_002_500_000_000}, 0}, // ms
		{[]int64{1_600_000_000_000_000_000, 1_600_000_002_000_000_000}, 1},                            // s: the second is absent
		{nil, 3},
	}
	for _, tc := range cases {
		if n := missing(times, []driver.Series{{Times: tc.got}}); n != tc.want {
			t.Errorf("got %v: %d missing, want %d", tc.got, n, tc.want)
		}
	}
}

// memPoints keeps points in memory; lose drops some without telling.
type memPoints struct {
	memDB
	pts map[string][]int64 // by driver.SeriesKey
}

func (d *memPoints) WritePoints(_ context.Context, _ string, pts []driver.Point) error {
	for _, p := range pts {
		k := driver.SeriesKey(p.Measurement, p.Tags)
		d.pts[k] = append(d.pts[k], p.Time)
	}
	return nil
}

func (d *memPoints) QueryPoints(_ context.Context, _ string, q driver.Query) ([]driver.Series, error) {
	var res []driver.Series
	for _, tags := range q.Series {
		s := driver.Series{}
		for _, t := range d.pts[driver.SeriesKey(q.Measurement, tags)] {
			if t >= q.From && t <= q.To {
				s.Times = append(s.Times, t/1e6*1e6) // a store of milliseconds
			}
		}
		res = append(res, s)
	}
	return res, nil
}

func (d *memPoints) DeletePoints(_ context.Context, _ string, q driver.Query) error {
	for _, tags := range q.Series {
		k := driver.SeriesKey(q.Measurement, tags)
		d.pts[k] = slices.DeleteFunc(d.pts[k], func(t int64) bool { return t >= q.From && t <= q.To })
	}
	return nil
}

// Without a server: the tracker keeps driver.Points (and the intended
// start a timeline needs), counts points lost behind its back, and does
// not judge points a delete named.
func TestVerifyPointsInMemory(t *testing.T) {
	ctx := context.Background()
	db := &memPoints{memDB: memDB{m: map[string]bool{}}, pts: map[string][]int64{}}
	tr := newTracker(db)
	tr.tl = newTimeline(time.Now())
	wrapped := tr.wrap()
	if _, ok := wrapped.(driver.ScheduleAware); !ok {
		t.Fatal("the tracker with a timeline does not want intended starts")
	}
	w := wrapped.(driver.Points)
	tags := []driver.Tag{{Key: "host", Value: "a"}}
	var pts []driver.Point
	for i := int64(0); i < 100; i++ {
		pts = append(pts, driver.Point{Measurement: "m", Tags: tags, Time: 1e12 + i*1e9 + 7, Fields: []driver.Field{{Name: "v", Value: []byte("1")}}})
	}
	if err := w.WritePoints(ctx, "t", pts); err != nil {
		t.Fatal(err)
	}
	if err := w.(driver.PointDeleter).DeletePoints(ctx, "t", driver.Query{Measurement: "m", Series: [][]driver.Tag{tags}, From: 1e12, To: 1e12 + 9e9 + 7}); err != nil {
		t.Fatal(err)
	}
	k := driver.SeriesKey("m", tags)
	db.pts[k] = db.pts[k][:len(db.pts[k])-3] // the newest 3 lost
	v := tr.verify(ctx, time.Second)
	if v.InsertsAcked != 90 || v.LostInserts != 3 || v.Uncertain != 10 {
		t.Errorf("verify: %+v; want 90 acknowledged, 3 lost, 10 uncertain (deleted)", v)
	}
}

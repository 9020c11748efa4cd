package timeseries

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
)

// pointsDB is a memDB that also stores points natively (driver.Points):
// it keeps copies of what it is given and the queries it is asked.
type pointsDB struct {
	*memDB
	mu      sync.Mutex
	pts     []driver.Point
	queries []driver.Query
}

func (p *pointsDB) WritePoints(_ context.Context, _ string, pts []driver.Point) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, x := range pts {
		c := driver.Point{Measurement: x.Measurement, Tags: append([]driver.Tag(nil), x.Tags...), Time: x.Time}
		for _, f := range x.Fields {
			c.Fields = append(c.Fields, driver.Field{Name: f.Name, Value: append([]byte(nil), f.Value...)})
		}
		p.pts = append(p.pts, c)
	}
	return nil
}

func (p *pointsDB) QueryPoints(_ context.Context, _ string, q driver.Query) ([]driver.Series, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queries = append(p.queries, q)
	return nil, nil
}

// DiskBytes is 5 bytes a point written so far: asked too early, it is less.
func (p *pointsDB) DiskBytes(context.Context, string) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return 5 * int64(len(p.pts)), nil
}

func TestNativeTSLoadAndQueries(t *testing.T) {
	db := &pointsDB{memDB: newMemDB()}
	w := newTS(t, "threadcount=2", "readproportion=1", "updateproportion=0", "groupbyfunction=SUM", "groupbykeys=0,1,1",
		"querytimespan=600", "downsamplingfunction=max", "downsamplinginterval=120")
	loadAll(t, w, db, 3, 50)
	if len(db.log) != 0 {
		t.Fatalf("%d record operations on a driver.Points, expected none", len(db.log))
	}
	if len(db.pts) != 240 {
		t.Fatalf("%d points written, expected recordcount 240", len(db.pts))
	}
	seen := map[string]bool{}
	for _, p := range db.pts {
		if (p.Time-1_000_000*int64(time.Second))%int64(60*time.Second) != 0 || p.Time < 1_000_000*int64(time.Second) {
			t.Fatalf("point time %d: expected insertstart plus whole intervals, in ns", p.Time)
		}
		k := driver.SeriesKey(p.Measurement, p.Tags) + "@" + strconv.FormatInt(p.Time, 10)
		if seen[k] {
			t.Fatalf("point %s written twice", k)
		}
		seen[k] = true
		if len(p.Tags) != 3 || len(p.Fields) != 1 || p.Fields[0].Name != "YCSBV" {
			t.Fatalf("point %+v: expected 3 tags and the value YCSBV", p)
		}
	}
	m := w.Headline(time.Second, nil)
	if len(m) != 1 || m[0].Name != "bytes_per_point" || m[0].Value != 5 {
		t.Errorf("headline %+v: expected bytes_per_point 5, asked after the whole load", m)
	}
	c := w.NewClient(0, 5)
	for i := 0; i < 20; i++ {
		if _, err := c.Do(context.Background(), db); err != nil {
			t.Fatal(err)
		}
	}
	if len(db.queries) != 20 {
		t.Fatalf("%d queries, expected 20", len(db.queries))
	}
	for _, q := range db.queries {
		// grouped by the 2nd and 3rd tags: 2 × 3 series; downsampled by max
		if len(q.Series) != 6 || q.Agg != "max" || q.Step != int64(120*time.Second) || q.To-q.From != int64(600*time.Second) || q.Field != "YCSBV" {
			t.Fatalf("query %+v: expected 6 series, max per 120s over 600s", q)
		}
	}
}

func TestNativeDevops(t *testing.T) {
	for _, tc := range []struct {
		layout string
		native bool
	}{{"auto", true}, {"fields", false}} {
		t.Run(tc.layout, func(t *testing.T) {
			w := newDevops(t, "timeseries.layout="+tc.layout, "devops.groupbyproportion=1", "devops.insertproportion=0",
				"devops.lastpointproportion=0", "devops.rangeproportion=0")
			db := &pointsDB{memDB: newMemDB()}
			c := w.NewClient(0, 1)
			for {
				n, err := c.Load(context.Background(), db, 50)
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
			}
			if !tc.native {
				if len(db.pts) != 0 || len(db.log) != 600 {
					t.Fatalf("layout fields: %d points, %d records; expected the 600 as records", len(db.pts), len(db.log))
				}
				return
			}
			if len(db.pts) != 600 || len(db.log) != 0 {
				t.Fatalf("%d points, %d records; expected 600 points natively", len(db.pts), len(db.log))
			}
			for _, p := range db.pts {
				h := -1
				for i, tags := range w.hostSeries {
					if tags[0] == p.Tags[0] {
						h = i
					}
				}
				if h < 0 || len(p.Fields) != 3 || p.Measurement != "cpu" || (p.Time-w.start)%w.interval != 0 {
					t.Fatalf("point %+v: expected a host's cpu point with 3 values on the 10s grid", p)
				}
			}
			for i := 0; i < 10; i++ {
				if _, err := c.Do(context.Background(), db); err != nil {
					t.Fatal(err)
				}
			}
			for _, q := range db.queries {
				if len(q.Series) != 4 || q.Agg != "max" || q.Step != int64(time.Minute) || q.To-q.From != int64(5*time.Minute) {
					t.Fatalf("GROUPBY query %+v: expected 4 hosts, max per minute over 5m", q)
				}
			}
			if len(db.queries) != 10 {
				t.Fatalf("%d queries, expected 10", len(db.queries))
			}
		})
	}
}

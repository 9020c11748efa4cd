package timeseries

import (
	"context"
	"testing"

	"github.com/dbrig/dbrig/driver"
)

// nopDB accepts everything (the null driver's cost, without its package).
type nopDB struct{}

func (nopDB) Read(context.Context, string, string, []string) (driver.Record, error) {
	return nil, nil
}
func (nopDB) Scan(context.Context, string, string, int, []string) ([]driver.Record, error) {
	return nil, nil
}
func (nopDB) Update(context.Context, string, string, driver.Record) error { return nil }
func (nopDB) Insert(context.Context, string, string, driver.Record) error { return nil }
func (nopDB) Delete(context.Context, string, string) error                { return nil }
func (nopDB) Close() error                                                { return nil }
func (nopDB) InsertBatch(context.Context, string, []string, []driver.Record) error {
	return nil
}

// BenchmarkTSWorkloadA is the generator's cost per operation of YCSB's
// tsworkloada (90 % inserts, 10 % hour-long reads) on a DB that does nothing.
func BenchmarkTSWorkloadA(b *testing.B) {
	text, _ := Builtin("tsworkloada")
	p := props(b, string(text))
	w, err := New(p)
	if err != nil {
		b.Fatal(err)
	}
	c := w.NewClient(0, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Do(context.Background(), nopDB{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDevopsIngest is the generator's cost per point of devops
// INSERT batches (100 points of 10 values).
func BenchmarkDevopsIngest(b *testing.B) {
	w := newDevops(b, "devops.insertproportion=1", "devops.lastpointproportion=0", "devops.rangeproportion=0",
		"devops.groupbyproportion=0", "devops.batch=100", "devops.metrics=10", "devops.outoforder=0.1")
	c := w.NewClient(0, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Do(context.Background(), nopDB{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "points/s")
}

// nopPoints takes points natively and drops them.
type nopPoints struct{ nopDB }

func (nopPoints) WritePoints(context.Context, string, []driver.Point) error { return nil }
func (nopPoints) QueryPoints(context.Context, string, driver.Query) ([]driver.Series, error) {
	return nil, nil
}

// BenchmarkDevopsIngestNative is BenchmarkDevopsIngest on a time-series
// store (driver.Points): points instead of keys and records.
func BenchmarkDevopsIngestNative(b *testing.B) {
	w := newDevops(b, "devops.insertproportion=1", "devops.lastpointproportion=0", "devops.rangeproportion=0",
		"devops.groupbyproportion=0", "devops.batch=100", "devops.metrics=10", "devops.outoforder=0.1")
	c := w.NewClient(0, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Do(context.Background(), nopPoints{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "points/s")
}

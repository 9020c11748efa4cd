package timeseries

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/workload"
)

// nativeOf returns db's time-series capability when the workload should
// use it: layout auto and a driver that has driver.Points. An explicit
// layout (fields, line) keeps points as records.
func nativeOf(layout string, db driver.DB) driver.Points {
	if layout != layoutAuto {
		return nil
	}
	p, _ := db.(driver.Points)
	return p
}

// nativePoints converts generated points for a driver.Points, reusing its
// slices between calls (the driver copies what it keeps).
type nativePoints struct {
	pts    []driver.Point
	tags   [][]driver.Tag
	fields [][]driver.Field
	meas   string // the last measurement as a string: one allocation per metric, not per point
}

// add appends p, its time scaled to nanoseconds by tick, with tags (nil:
// made from p's own tag values).
func (n *nativePoints) add(p *point, tick int64, tags []driver.Tag) {
	i := len(n.pts)
	if i == len(n.tags) {
		n.tags = append(n.tags, nil)
		n.fields = append(n.fields, nil)
	}
	if tags == nil {
		t := n.tags[i][:0]
		for j, k := range p.tagKeys {
			t = append(t, driver.Tag{Key: k, Value: string(p.tagVals[j])})
		}
		n.tags[i], tags = t, t
	}
	f := n.fields[i]
	if len(f) != len(p.fieldNames) {
		f = append(f[:0], make([]driver.Field, len(p.fieldNames))...)
		n.fields[i] = f
	}
	for j, name := range p.fieldNames {
		if f[j].Name != name { // the names of a slot rarely change: not written again
			f[j].Name = name
		}
		f[j].Value = p.fieldVals[j]
	}
	if n.meas != string(p.measurement) { // the comparison does not allocate
		n.meas = string(p.measurement)
	}
	n.pts = append(n.pts, driver.Point{Measurement: n.meas, Tags: tags, Time: p.ts * tick, Fields: f})
}

func (n *nativePoints) reset() { n.pts = n.pts[:0] }

// seriesTags returns p's series as tags (a fresh slice: a query keeps it).
func seriesTags(p *point) []driver.Tag {
	t := make([]driver.Tag, len(p.tagKeys))
	for j, k := range p.tagKeys {
		t[j] = driver.Tag{Key: k, Value: string(p.tagVals[j])}
	}
	return t
}

// nativeQuery asks a TimeSeriesWorkload query of the driver: every series
// the query covers (c.fix, grouped tags enumerated), over [from, to] in
// ticks, aggregated with fn in buckets of step ticks when fn is set.
func (c *tsClient) nativeQuery(ctx context.Context, from, to int64, fn string, step int64) ([]driver.Series, error) {
	w := c.w
	tick := int64(w.tick)
	q := driver.Query{Measurement: string(c.pt.measurement), Field: w.valueKey, From: from * tick, Agg: fn, Step: step * tick}
	q.To = to * tick
	if to > math.MaxInt64/tick {
		q.To = math.MaxInt64
	}
	_ = c.eachSeries(func() error {
		q.Series = append(q.Series, seriesTags(&c.pt))
		return nil
	})
	return c.native.QueryPoints(ctx, w.table, q)
}

// nativeRead is READ on a driver.Points: a point read (checked with
// dataintegrity), or the span of every covered series, aggregated.
func (c *tsClient) nativeRead(ctx context.Context, from, to int64) error {
	w := c.w
	fn := w.downFn
	if fn == "" {
		fn = w.groupFn
	}
	step := int64(0)
	if w.downFn != "" {
		step = w.downInterval
	}
	res, err := c.nativeQuery(ctx, from, to, fn, step)
	if err != nil || !w.dataIntegrity || fn != "" || to != from {
		return err
	}
	c.pt.ts = from
	want := w.validation(&c.pt)
	if len(res) != 1 || len(res[0].Values) != 1 || int64(res[0].Values[0]) != want {
		return errclass.Wrap(errclass.Other, fmt.Errorf("dataintegrity: %s at %d: read %v, expected %d", c.pt.measurement, from, res, want))
	}
	return nil
}

// nativeDelete is DELETE on a driver.Points: the covered series' points
// in the span, where the driver can delete.
func (c *tsClient) nativeDelete(ctx context.Context, from, to int64) error {
	d, ok := c.native.(driver.PointDeleter)
	if !ok {
		return errclass.Wrap(errclass.Other, fmt.Errorf("timeseries: the driver cannot delete points (no driver.PointDeleter)"))
	}
	tick := int64(c.w.tick)
	q := driver.Query{Measurement: string(c.pt.measurement), From: from * tick, To: to * tick}
	_ = c.eachSeries(func() error {
		q.Series = append(q.Series, seriesTags(&c.pt))
		return nil
	})
	return d.DeletePoints(ctx, c.w.table, q)
}

// footprint asks a driver.Footprint for the bytes on disk once the last
// load client of this process is done: bytes per point of the load.
type footprint struct {
	left  atomic.Int64 // load clients still writing
	bytes atomic.Int64 // -1: not known
}

func (f *footprint) init(clients int64) {
	f.left.Store(clients)
	f.bytes.Store(-1)
}

// loaded is called by a load client that wrote its last point.
func (f *footprint) loaded(ctx context.Context, db driver.DB, table string) {
	if f.left.Add(-1) != 0 {
		return
	}
	if fp, ok := db.(driver.Footprint); ok {
		if n, err := fp.DiskBytes(ctx, table); err == nil {
			f.bytes.Store(n)
		}
	}
}

// metric is bytes_per_point over points loaded, when known.
func (f *footprint) metric(points int64) []workload.Metric {
	b := f.bytes.Load()
	if b < 0 || points <= 0 {
		return nil
	}
	return []workload.Metric{{Name: "bytes_per_point", Value: float64(b) / float64(points), Unit: "B/point",
		Doc: fmt.Sprintf("bytes on disk after the load (the driver's count: data, index, log) / the %d points loaded", points)}}
}

// loadClients is how many of threads clients get a share of total.
func loadClients(total int64, threads int) int64 {
	var n int64
	for i := 0; i < threads; i++ {
		if split(total, int64(threads), int64(i)) > 0 {
			n++
		}
	}
	return n
}

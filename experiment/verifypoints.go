package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/results"
)

// Lost points (verify: true on a driver.Points store): the tracker notes
// the series and time of every point a WritePoints acknowledged and, after
// the run and the last heal, reads each series back with QueryPoints (its
// first field, in spans of at most verifyPointSpan points). An acknowledged
// point missing is a lost write, counted with the lost inserts (a point is
// one insert: inserts_acked counts points).
//
// Not judged, counted as uncertain: a point only ever written by a batch
// that failed (it may or may not have been stored), and every point in a
// span a DeletePoints named (acknowledged or not: the order a concurrent
// write and delete were applied in is unknown). A store that keeps a
// coarser precision than nanoseconds (VictoriaMetrics: ms) has a point at
// its time truncated to µs, ms or s. Memory: 8 bytes per point written
// (16 while its series' slice grows) and one entry per series and field.

// verifyPointSpan bounds the points one read-back query asks for.
const verifyPointSpan = 10000

// pointSeries is what was written to one series' field.
type pointSeries struct {
	table, meas, field string
	tags               []driver.Tag
	skey               string // the series without the field: deletes are looked up by it
	acked, failed      []int64
}

type pointLog struct {
	mu      sync.Mutex
	series  map[string]*pointSeries
	deleted map[string][][2]int64 // by pointSeries.skey: spans a delete named
	buf     []byte                // scratch key, under mu
}

func newPointLog() *pointLog {
	return &pointLog{series: map[string]*pointSeries{}, deleted: map[string][][2]int64{}}
}

// seriesKey is table, measurement and tags (in the order given) in buf.
func seriesKey(buf []byte, table, meas string, tags []driver.Tag) []byte {
	buf = append(append(append(buf[:0], table...), 0), meas...)
	for _, t := range tags {
		buf = append(append(append(append(buf, 0), t.Key...), '='), t.Value...)
	}
	return buf
}

// wrote notes pts as acknowledged (err nil) or of unknown outcome.
func (l *pointLog) wrote(table string, pts []driver.Point, err error) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range pts {
		p := &pts[i]
		if len(p.Fields) == 0 {
			continue
		}
		l.buf = seriesKey(l.buf, table, p.Measurement, p.Tags)
		n := len(l.buf)
		l.buf = append(append(l.buf, 1), p.Fields[0].Name...)
		s := l.series[string(l.buf)] // the lookup does not allocate
		if s == nil {
			s = &pointSeries{table: table, meas: p.Measurement, field: p.Fields[0].Name,
				tags: slices.Clone(p.Tags), skey: string(l.buf[:n])}
			l.series[string(l.buf)] = s
		}
		if err == nil {
			s.acked = append(s.acked, p.Time)
		} else {
			s.failed = append(s.failed, p.Time)
		}
	}
}

// deleting notes the span of q's series a delete names.
func (l *pointLog) deleting(table string, q driver.Query) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, tags := range q.Series {
		k := string(seriesKey(l.buf, table, q.Measurement, tags))
		l.deleted[k] = append(l.deleted[k], [2]int64{q.From, q.To})
	}
}

// pointJob is one read-back query: times of s, sorted.
type pointJob struct {
	s     *pointSeries
	times []int64
}

// judge sorts what was written to each series into the times to read back
// (sent to jobs) and the counts of acknowledged and uncertain points.
func (l *pointLog) judge(v *results.Verification, jobs chan<- pointJob) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.series {
		slices.Sort(s.acked)
		s.acked = slices.Compact(s.acked)
		slices.Sort(s.failed)
		for i, t := range s.failed {
			if (i == 0 || s.failed[i-1] != t) && !has(s.acked, t) {
				v.Uncertain++
			}
		}
		spans := l.deleted[s.skey]
		judged := s.acked[:0:0]
		for _, t := range s.acked {
			if inSpans(spans, t) {
				v.Uncertain++
				continue
			}
			judged = append(judged, t)
		}
		v.InsertsAcked += int64(len(judged))
		for len(judged) > 0 {
			n := min(len(judged), verifyPointSpan)
			jobs <- pointJob{s, judged[:n]}
			judged = judged[n:]
		}
	}
}

func has(sorted []int64, t int64) bool {
	_, ok := slices.BinarySearch(sorted, t)
	return ok
}

func inSpans(spans [][2]int64, t int64) bool {
	for _, sp := range spans {
		if t >= sp[0] && t <= sp[1] {
			return true
		}
	}
	return false
}

// verifyPoints reads every judged point back and adds the counts to v.
func (t *tracker) verifyPoints(ctx context.Context, timeout time.Duration, v *results.Verification) {
	if t.pts == nil {
		return
	}
	p := t.db.(driver.Points)
	if f, ok := t.db.(driver.PointsFlusher); ok {
		fctx, cancel := context.WithTimeout(ctx, timeout)
		_ = f.Flush(fctx) // not flushed: the read-back may miss points and say so
		cancel()
	}
	jobs := make(chan pointJob)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range verifyWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				lost, err := readPoints(ctx, p, j, timeout)
				mu.Lock()
				if err != nil {
					v.Unreadable += int64(len(j.times))
				} else {
					v.LostInserts += lost
				}
				mu.Unlock()
			}
		}()
	}
	var judged results.Verification
	t.pts.judge(&judged, jobs)
	close(jobs)
	wg.Wait()
	v.InsertsAcked += judged.InsertsAcked
	v.Uncertain += judged.Uncertain
}

// readPoints counts the times of j the store does not have, trying again
// after an error (a store still recovering after a heal).
func readPoints(ctx context.Context, p driver.Points, j pointJob, timeout time.Duration) (int64, error) {
	q := driver.Query{Measurement: j.s.meas, Field: j.s.field, Series: [][]driver.Tag{j.s.tags},
		From: j.times[0], To: j.times[len(j.times)-1]}
	var err error
	for try := 0; try < verifyTries; try++ {
		rctx, cancel := context.WithTimeout(ctx, timeout)
		var res []driver.Series
		res, err = p.QueryPoints(rctx, j.s.table, q)
		cancel()
		if err == nil {
			return missing(j.times, res), nil
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		time.Sleep(200 * time.Millisecond)
	}
	return 0, err
}

// missing counts the times not in res, at full or a truncated precision.
func missing(times []int64, res []driver.Series) int64 {
	got := map[int64]bool{}
	for _, s := range res {
		for _, t := range s.Times {
			got[t] = true
		}
	}
	var n int64
	for _, t := range times {
		if !got[t] && !got[t-t%1e3] && !got[t-t%1e6] && !got[t-t%1e9] {
			n++
		}
	}
	return n
}

// pointsOps is the tracker's driver.Points (with PointDeleter and
// Footprint passed on, failing when the driver lacks them).
type pointsOps struct{ t *tracker }

func (d pointsOps) WritePoints(ctx context.Context, table string, pts []driver.Point) error {
	err := d.t.tl.record(ctx, func() error { return d.t.db.(driver.Points).WritePoints(ctx, table, pts) })
	d.t.pts.wrote(table, pts, err)
	return err
}

func (d pointsOps) QueryPoints(ctx context.Context, table string, q driver.Query) (res []driver.Series, err error) {
	err = d.t.tl.record(ctx, func() error { res, err = d.t.db.(driver.Points).QueryPoints(ctx, table, q); return err })
	return res, err
}

func (d pointsOps) DeletePoints(ctx context.Context, table string, q driver.Query) error {
	pd, ok := d.t.db.(driver.PointDeleter)
	if !ok {
		return errclass.Wrap(errclass.Other, fmt.Errorf("the driver cannot delete points (no driver.PointDeleter)"))
	}
	d.t.pts.deleting(table, q)
	return d.t.tl.record(ctx, func() error { return pd.DeletePoints(ctx, table, q) })
}

var errNoFootprint = errors.New("the driver does not tell its bytes on disk (no driver.Footprint)")

func (d pointsOps) DiskBytes(ctx context.Context, table string) (int64, error) {
	fp, ok := d.t.db.(driver.Footprint)
	if !ok {
		return 0, errNoFootprint
	}
	return fp.DiskBytes(ctx, table)
}

type trackedPoints struct {
	tracked
	pointsOps
}

type trackedPointsBatch struct {
	trackedBatch
	pointsOps
}

type trackedPointsAware struct{ trackedPoints }

func (trackedPointsAware) WantsIntendedStart() {}

type trackedPointsBatchAware struct{ trackedPointsBatch }

func (trackedPointsBatchAware) WantsIntendedStart() {}

// wrapPoints is wrap for a driver.Points.
func (t *tracker) wrapPoints(batch, aware bool) driver.DB {
	ops := pointsOps{t}
	switch {
	case batch && aware:
		return trackedPointsBatchAware{trackedPointsBatch{trackedBatch{tracked{t}}, ops}}
	case batch:
		return trackedPointsBatch{trackedBatch{tracked{t}}, ops}
	case aware:
		return trackedPointsAware{trackedPoints{tracked{t}, ops}}
	}
	return trackedPoints{tracked{t}, ops}
}

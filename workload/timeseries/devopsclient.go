package timeseries

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/workload"
	"github.com/dbrig/dbrig/workload/gen"
)

// late is a point held back to arrive out of order.
type late struct {
	host int
	k    int64
}

// dcursor is a devops client's write position: the next host and interval
// of its slice, and the late points waiting, in a ring by the interval
// they are due at.
type dcursor struct {
	host     int
	k        int64
	held     [][]late
	complete int64 // newest interval whose in-order points were all taken
}

type devopsClient struct {
	w        *Devops
	r        *rand.Rand
	ops      *gen.Discrete
	id       int
	lo, hi   int
	load     dcursor
	run      *dcursor
	loadLeft int64
	vals     []float64 // random walk per host of the slice and metric

	codec  codec
	ready  bool
	native driver.Points // set: points go to the driver natively
	np     nativePoints
	pts    []point
	recs   []driver.Record
	bufs   [][]byte
	keys   []string
	q      point // the series a query reads
	bk     buckets
}

// NewClient returns client id's state; seed and id seed its choices.
func (w *Devops) NewClient(id int, seed int64) workload.Client {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(id)))
	c := &devopsClient{w: w, r: r, id: id}
	var err error
	if c.ops, err = gen.NewDiscrete(r, w.proportions[:]); err != nil {
		panic(fmt.Sprintf("timeseries: devops proportions checked by NewDevops: %v", err))
	}
	c.lo, c.hi = w.slice(id)
	c.load = c.newCursor(0)
	if id < w.threads {
		c.loadLeft = split(w.loadCount, int64(w.threads), int64(id))
	}
	c.vals = make([]float64, (c.hi-c.lo)*len(w.metrics))
	for i := range c.vals {
		c.vals[i] = r.Float64() * 100
	}
	c.codec = codec{delim: ":", pair: "=", tsKey: "time", lineField: w.lineField}
	c.q = point{measurement: []byte("cpu"), tagKeys: devopsTags}
	return c
}

func (c *devopsClient) newCursor(k int64) dcursor {
	return dcursor{host: c.lo, k: k, held: make([][]late, c.w.oooMax+2), complete: k - 1}
}

// next returns the host and interval of the next point to write: a late
// point now due, or the next in order (which may itself be held back).
func (c *devopsClient) next(cur *dcursor) (int, int64) {
	w := c.w
	ring := int64(len(cur.held))
	for {
		if b := cur.held[cur.k%ring]; len(b) > 0 {
			l := b[len(b)-1]
			cur.held[cur.k%ring] = b[:len(b)-1]
			return l.host, l.k
		}
		h, k := cur.host, cur.k
		cur.host++
		if cur.host == c.hi {
			cur.host = c.lo
			cur.k++
			cur.complete = k
		}
		if w.ooo > 0 && c.r.Float64() < w.ooo {
			// due after d more intervals of its host: d intervals late
			due := k + 2 + c.r.Int64N(w.oooMax)
			cur.held[due%ring] = append(cur.held[due%ring], late{h, k})
			continue
		}
		return h, k
	}
}

// fill makes point i of the batch: host h at interval k, each metric one
// step of its random walk in [0, 100].
func (c *devopsClient) fill(i, h int, k int64) *point {
	w := c.w
	for len(c.pts) <= i {
		c.pts = append(c.pts, point{measurement: []byte("cpu"), tagKeys: devopsTags, fieldNames: w.metrics, fieldVals: make([][]byte, len(w.metrics))})
		c.recs = append(c.recs, driver.Record{})
		c.bufs = append(c.bufs, nil)
	}
	p := &c.pts[i]
	p.tagVals = w.hostTags[h]
	p.ts = w.start + k*w.interval
	base := (h - c.lo) * len(w.metrics)
	for j := range w.metrics {
		v := c.vals[base+j] + (c.r.Float64()-0.5)*2
		v = min(100, max(0, v))
		c.vals[base+j] = v
		p.fieldVals[j] = w.cents[int64(v*100+0.5)]
	}
	return p
}

// centsText is the text of every value 0.00 … 100.00 by hundredths, in
// one array: a devops value is looked up, not formatted (the cost of
// formatting was a third of a native point's). Read only.
func centsText() [][]byte {
	const n = 10001
	all := make([]byte, 0, n*6)
	t := make([][]byte, n)
	for x := range n {
		i := len(all)
		all = appendCents(all, float64(x)/100)
		t[x] = all[i:len(all):len(all)]
	}
	return t
}

// appendCents appends v >= 0 with two decimals (what strconv's 'f', 2
// gives, at a fraction of its cost).
func appendCents(dst []byte, v float64) []byte {
	x := int64(v*100 + 0.5)
	dst = strconv.AppendInt(dst, x/100, 10)
	return append(dst, '.', byte('0'+x/10%10), byte('0'+x%10))
}

// write writes n points from cur: one InsertBatch when the driver has it.
func (c *devopsClient) write(ctx context.Context, db driver.DB, cur *dcursor, n int, batch bool) (int, error) {
	c.keys = c.keys[:0]
	c.np.reset()
	for i := 0; i < n; i++ {
		h, k := c.next(cur)
		p := c.fill(i, h, k)
		if c.native != nil {
			c.np.add(p, 1, c.w.hostSeries[h])
			continue
		}
		c.keys = append(c.keys, c.codec.key(p, p.ts))
		c.codec.record(p, c.recs[i], &c.bufs[i])
	}
	bi, ok := db.(driver.BatchInserter)
	if c.native != nil {
		if err := c.native.WritePoints(ctx, c.w.table, c.np.pts); err != nil {
			return 0, err
		}
	} else if ok && batch && n > 1 {
		if err := bi.InsertBatch(ctx, c.w.table, c.keys, c.recs[:n]); err != nil {
			return 0, err
		}
	} else {
		for i := 0; i < n; i++ {
			if err := db.Insert(ctx, c.w.table, c.keys[i], c.recs[i]); err != nil {
				return i, err
			}
		}
	}
	// Published once written: a LASTPOINT never looks for what is still
	// on its way to the database.
	if l := &c.w.latest[c.id%c.w.threads]; l.Load() < cur.complete {
		l.Store(cur.complete)
	}
	return n, nil
}

func (c *devopsClient) use(db driver.DB) {
	if !c.ready {
		c.codec.useDB(c.w.layout, db)
		c.native = nativeOf(c.w.layout, db)
		c.ready = true
	}
}

// Load writes the next up to limit points of the client's share.
func (c *devopsClient) Load(ctx context.Context, db driver.DB, limit int) (int, error) {
	c.use(db)
	n := int(min(int64(max(limit, 1)), c.loadLeft))
	if n == 0 {
		return 0, nil
	}
	c.loadLeft -= int64(n)
	done, err := c.write(ctx, db, &c.load, n, limit > 1)
	if err != nil {
		return done, fmt.Errorf("load %d points: %w", n, err)
	}
	if c.loadLeft == 0 && c.id < c.w.threads {
		cur := c.load
		c.w.handoff[c.id].Store(&cur)
		c.w.fp.loaded(ctx, db, c.w.table)
	}
	return done, nil
}

// Do performs one operation of the mix.
func (c *devopsClient) Do(ctx context.Context, db driver.DB) (int, error) {
	c.use(db)
	op := c.ops.Next()
	var err error
	switch op {
	case DevopsInsert:
		if c.run == nil {
			if c.id < c.w.threads {
				c.run = c.w.handoff[c.id].Swap(nil)
			}
			if c.run == nil {
				cur := c.newCursor(c.w.runOffset)
				c.run = &cur
			}
		}
		_, err = c.write(ctx, db, c.run, c.w.batch, true)
	case DevopsLastPoint:
		err = c.lastPoint(ctx, db)
	case DevopsRange:
		err = c.rangeQuery(ctx, db)
	case DevopsGroupBy:
		err = c.groupBy(ctx, db)
	}
	return op, err
}

// newest is the newest interval every in-order point of host h's slice
// has been written at (0 before any).
func (c *devopsClient) newest(h int) int64 {
	return max(0, c.w.latest[c.w.owner(h)].Load())
}

// lastPoint reads the newest point of a random host: at its slice's
// newest written interval, stepping back over points still held late.
func (c *devopsClient) lastPoint(ctx context.Context, db driver.DB) error {
	w := c.w
	h := c.r.IntN(w.hosts)
	c.q.tagVals = w.hostTags[h]
	k := c.newest(h)
	if c.native != nil {
		q := driver.Query{Measurement: "cpu", Field: w.metrics[0], Series: [][]driver.Tag{w.hostSeries[h]}, Last: true,
			From: w.start + max(0, k-w.oooMax-1)*w.interval, To: w.start + k*w.interval}
		_, err := c.native.QueryPoints(ctx, w.table, q)
		return err
	}
	var err error
	// A point of interval k is written by the time interval k+1+oooMax
	// is: the newest written one is at most oooMax+1 intervals back.
	for back := int64(0); back <= w.oooMax+1 && k-back >= 0; back++ {
		_, err = db.Read(ctx, w.table, c.codec.key(&c.q, w.start+(k-back)*w.interval), nil)
		if !errors.Is(err, errclass.ErrNotFound) {
			return err
		}
	}
	return err
}

// window draws a query's time span ending no later than newest.
func (c *devopsClient) window(newest int64) (from, to int64, n int) {
	w := c.w
	steps := w.span / w.interval
	k := c.r.Int64N(max(1, newest-steps+1))
	from = w.start + k*w.interval
	return from, from + w.span, int(steps) + 1
}

// rangeQuery reads one metric of one host over devops.query.range.
func (c *devopsClient) rangeQuery(ctx context.Context, db driver.DB) error {
	w := c.w
	h := c.r.IntN(w.hosts)
	c.q.tagVals = w.hostTags[h]
	from, to, n := c.window(c.newest(h))
	if c.native != nil {
		q := driver.Query{Measurement: "cpu", Field: w.metrics[c.r.IntN(len(w.metrics))], Series: [][]driver.Tag{w.hostSeries[h]}, From: from, To: to}
		_, err := c.native.QueryPoints(ctx, w.table, q)
		return err
	}
	_, err := c.codec.scanSeries(ctx, db, w.table, &c.q, from, to, n, w.metrics[c.r.IntN(len(w.metrics))], nil)
	return err
}

// groupBy aggregates one metric of devops.groupby.hosts consecutive hosts
// over devops.query.range in devops.groupby.bucket buckets.
func (c *devopsClient) groupBy(ctx context.Context, db driver.DB) error {
	w := c.w
	h0 := c.r.IntN(w.hosts)
	newest := int64(1) << 62
	for i := 0; i < w.gbHosts; i++ {
		newest = min(newest, c.newest((h0+i)%w.hosts))
	}
	from, to, n := c.window(newest)
	metric := w.metrics[c.r.IntN(len(w.metrics))]
	if c.native != nil {
		q := driver.Query{Measurement: "cpu", Field: metric, From: from, To: to, Agg: w.gbFn, Step: w.bucket}
		for i := 0; i < w.gbHosts; i++ {
			q.Series = append(q.Series, w.hostSeries[(h0+i)%w.hosts])
		}
		_, err := c.native.QueryPoints(ctx, w.table, q)
		return err
	}
	c.bk.reset(from, to, w.bucket)
	for i := 0; i < w.gbHosts; i++ {
		c.q.tagVals = w.hostTags[(h0+i)%w.hosts]
		if _, err := c.codec.scanSeries(ctx, db, w.table, &c.q, from, to, n, metric, &c.bk); err != nil {
			return err
		}
	}
	_ = c.bk.fold(w.gbFn)
	return nil
}

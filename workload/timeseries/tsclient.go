package timeseries

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/workload"
	"github.com/dbrig/dbrig/workload/gen"
)

// cursor is YCSB's ThreadState write position as one count: pos is how
// many series steps the client has taken over its slice of n series, so
// the series is pos mod n (the last tag counting fastest, then the
// earlier tags, then the metric, as YCSB's odometer) and the interval
// base + pos / n. A sparsity skip is an addition.
type cursor struct {
	lo   int   // first metric of the slice
	n    int64 // series in the slice
	base int64 // interval of pos 0
	pos  int64
	perm []int64
}

// tsClient is one client of the TimeSeriesWorkload.
type tsClient struct {
	w        *TSWorkload
	r        *rand.Rand
	ops      *gen.Discrete
	keys     gen.Int64
	scanLen  gen.Int64
	load     cursor
	run      *cursor // created at the first run-phase write
	loadLeft int64
	id       int

	codec    codec
	ready    bool
	native   driver.Points // set: points go to the driver natively
	np       nativePoints
	pt       point
	vbuf     []byte
	rec      driver.Record
	buf      []byte
	bk       buckets
	fix      []int // tag value per tag for a query; -1 where grouped
	batchRec []driver.Record
	batchBuf [][]byte
	batchKey []string
	vbufs    [][]byte
}

// NewClient returns client id's state; seed and id seed its choices, so a
// client's points and queries are the same for the same seed.
func (w *TSWorkload) NewClient(id int, seed int64) workload.Client {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(id)))
	c := &tsClient{w: w, r: r, id: id, rec: driver.Record{}}
	var err error
	if c.ops, err = gen.NewDiscrete(r, w.proportions[:]); err != nil {
		panic(fmt.Sprintf("timeseries: proportions checked by New: %v", err))
	}
	n := int64(len(w.keys))
	switch w.requestDist {
	case "uniform":
		c.keys, err = gen.NewUniform(r, 0, n-1)
	case "sequential":
		c.keys, err = gen.NewSequential(0, n-1)
	case "hotspot":
		c.keys, err = gen.NewHotspot(r, 0, n-1, w.hotData, w.hotOpn)
	default:
		c.keys, err = gen.NewScrambledZipfian(r, 0, n-1, gen.DefaultZipfianConstant)
	}
	if err == nil {
		if w.scanDist == "zipfian" {
			c.scanLen, err = gen.NewZipfianRange(r, 1, w.maxScan, gen.DefaultZipfianConstant)
		} else {
			c.scanLen, err = gen.NewUniform(r, 1, w.maxScan)
		}
	}
	if err != nil {
		panic(fmt.Sprintf("timeseries: generators checked by New: %v", err))
	}
	c.load = w.newCursor(id, 0, r)
	if id < w.threads {
		c.loadLeft = split(w.loadCount, int64(w.threads), int64(id))
	}
	c.codec = codec{delim: w.delim, pair: w.pair, tsKey: w.tsKey, lineField: w.lineField}
	c.pt = point{tagKeys: w.tagKeys, tagVals: make([][]byte, len(w.card)), fieldNames: []string{w.valueKey}, fieldVals: make([][]byte, 1)}
	c.fix = make([]int, len(w.card))
	return c
}

func (w *TSWorkload) newCursor(id int, k int64, r *rand.Rand) cursor {
	lo, hi := w.slice(id)
	cur := cursor{lo: lo, n: int64(hi-lo) * w.perKey, base: k}
	if w.randomOrder {
		cur.perm = make([]int64, w.maxOffsets)
		for i := range cur.perm {
			cur.perm[i] = int64(i)
		}
		r.Shuffle(len(cur.perm), func(i, j int) { cur.perm[i], cur.perm[j] = cur.perm[j], cur.perm[i] })
	}
	return cur
}

// ts is the timestamp of the cursor's interval: in order, or with
// randomwritetimestamporder shuffled within blocks of maxOffsets intervals.
func (w *TSWorkload) ts(cur *cursor) int64 {
	k := cur.base + cur.pos/cur.n
	if cur.perm != nil {
		m := int64(len(cur.perm))
		k = k/m*m + cur.perm[k%m]
	}
	return w.start + k*w.interval
}

func (c *tsClient) use(db driver.DB) {
	if !c.ready {
		c.codec.useDB(c.w.layout, db)
		c.native = nativeOf(c.w.layout, db)
		c.ready = true
	}
}

// next moves cur to the next point, as YCSB's nextDataPoint: with sparsity
// it first skips a random number of series; it fills c.pt and returns it.
func (c *tsClient) next(cur *cursor, insert bool, vbuf *[]byte) *point {
	if c.w.sparsity > 0 {
		cur.pos += max(1, c.r.Int64N(c.w.sparseMax())) - 1
	}
	c.fill(cur, insert, vbuf)
	cur.pos++
	return &c.pt
}

func (c *tsClient) fill(cur *cursor, insert bool, vbuf *[]byte) {
	w, p := c.w, &c.pt
	s := cur.pos % cur.n
	metric := cur.lo + int(s/w.perKey)
	p.measurement = w.keys[metric]
	overall := int64(metric) * w.cum[0]
	for i := range w.card {
		t := (s % w.perKey) / w.cum[i+1] % int64(w.card[i])
		p.tagVals[i] = w.tagVal[t]
		overall += t * w.cum[i+1]
	}
	now := w.ts(cur)
	switch {
	case !insert: // an update rewrites an earlier point, as YCSB
		if delta := (now - w.start) / w.interval; delta > 0 {
			now = w.start + c.r.Int64N(delta)*w.interval
		}
	case w.delayed > 0 && float64(overall)/float64(w.total) < w.delayed:
		now -= w.interval * (overall % w.delayedIntervals)
	}
	p.ts = now
	b := (*vbuf)[:0]
	switch {
	case w.dataIntegrity:
		b = strconv.AppendInt(b, w.validation(p), 10)
	case w.valueType == "integers" || (w.valueType == "mixed" && c.r.IntN(2) == 0):
		b = strconv.AppendInt(b, int64(int32(c.r.Uint32())), 10)
	default:
		b = strconv.AppendFloat(b, c.r.Float64()*100000, 'g', -1, 64)
	}
	*vbuf = b
	p.fieldVals[0] = b
}

// validation is YCSB's validationFunction: the Java hash code of the tag
// keys and values in key order, XOR the timestamp.
func (w *TSWorkload) validation(p *point) int64 {
	var h int32
	for i, k := range p.tagKeys { // tag keys are generated in sorted order
		for _, s := range [][]byte{[]byte(k), p.tagVals[i]} {
			for _, b := range s {
				h = 31*h + int32(b)
			}
		}
	}
	return int64(h) ^ p.ts
}

// Load writes the next up to limit points of the client's share of the
// load, in one InsertBatch when the driver has it.
func (c *tsClient) Load(ctx context.Context, db driver.DB, limit int) (int, error) {
	c.use(db)
	n := int(min(int64(max(limit, 1)), c.loadLeft))
	if n == 0 {
		return 0, nil
	}
	c.loadLeft -= int64(n)
	if c.native != nil {
		c.np.reset()
		for i := 0; i < n; i++ {
			for len(c.vbufs) <= i {
				c.vbufs = append(c.vbufs, nil)
			}
			c.np.add(c.next(&c.load, true, &c.vbufs[i]), int64(c.w.tick), nil)
		}
		if err := c.native.WritePoints(ctx, c.w.table, c.np.pts); err != nil {
			return 0, fmt.Errorf("load %d points: %w", n, err)
		}
		if c.loadLeft == 0 {
			c.w.fp.loaded(ctx, db, c.w.table)
		}
		return n, nil
	}
	bi, isBatch := db.(driver.BatchInserter)
	if !isBatch || limit <= 1 {
		for i := 0; i < n; i++ {
			p := c.next(&c.load, true, &c.vbuf)
			key := c.codec.key(p, p.ts)
			if err := db.Insert(ctx, c.w.table, key, c.codec.record(p, c.rec, &c.buf)); err != nil {
				return i, fmt.Errorf("load %s: %w", key, err)
			}
		}
		return n, nil
	}
	for len(c.batchRec) < n {
		c.batchRec = append(c.batchRec, driver.Record{})
		c.batchBuf = append(c.batchBuf, nil)
		c.vbufs = append(c.vbufs, nil)
	}
	c.batchKey = c.batchKey[:0]
	for i := 0; i < n; i++ {
		p := c.next(&c.load, true, &c.vbufs[i])
		c.batchKey = append(c.batchKey, c.codec.key(p, p.ts))
		c.codec.record(p, c.batchRec[i], &c.batchBuf[i])
	}
	if err := bi.InsertBatch(ctx, c.w.table, c.batchKey, c.batchRec[:n]); err != nil {
		return 0, fmt.Errorf("load %d points from %s: %w", n, c.batchKey[0], err)
	}
	return n, nil
}

// Do performs one operation of the mix.
func (c *tsClient) Do(ctx context.Context, db driver.DB) (int, error) {
	c.use(db)
	op := c.ops.Next()
	var err error
	switch op {
	case OpInsert, OpUpdate:
		if c.run == nil {
			cur := c.w.newCursor(c.id, c.w.runOffset, c.r)
			c.run = &cur
		}
		p := c.next(c.run, op == OpInsert, &c.vbuf)
		if c.native != nil {
			c.np.reset()
			c.np.add(p, int64(c.w.tick), nil)
			err = c.native.WritePoints(ctx, c.w.table, c.np.pts)
			break
		}
		key := c.codec.key(p, p.ts)
		rec := c.codec.record(p, c.rec, &c.buf)
		if op == OpInsert {
			err = db.Insert(ctx, c.w.table, key, rec)
		} else {
			err = db.Update(ctx, c.w.table, key, rec)
		}
	case OpRead:
		err = c.read(ctx, db)
	case OpScan:
		err = c.scan(ctx, db)
	case OpDelete:
		err = c.delete(ctx, db)
	}
	return op, err
}

// query draws what a read, scan or delete asks for, as YCSB: a metric (by
// the request distribution for reads, uniformly otherwise), a start among
// the loaded intervals, the end of the time span, and a tag value per tag
// not grouped by (-1 in c.fix where grouped).
func (c *tsClient) query(read bool) (from, to int64) {
	w := c.w
	metric := c.r.Int64N(int64(len(w.keys)))
	if read {
		metric = c.keys.Next()
	}
	c.pt.measurement = w.keys[metric]
	from = w.start + c.r.Int64N(max(1, w.maxOffsets-1))*w.interval
	to = from
	if w.span > 0 {
		if w.randomSpan {
			to = from + w.interval*c.r.Int64N(w.span/w.interval)
		} else {
			to = from + w.span
		}
	}
	for i, card := range w.card {
		c.fix[i] = -1
		if w.groupBy == nil || !w.groupBy[i] {
			c.fix[i] = c.r.IntN(card)
		}
		if c.fix[i] >= 0 {
			c.pt.tagVals[i] = w.tagVal[c.fix[i]]
		}
	}
	return from, to
}

// eachSeries calls fn for every series the query covers: one, or with a
// group-by every combination of the grouped tags' values.
func (c *tsClient) eachSeries(fn func() error) error {
	return c.combos(0, fn)
}

func (c *tsClient) combos(i int, fn func() error) error {
	if i == len(c.fix) {
		return fn()
	}
	if c.fix[i] >= 0 {
		return c.combos(i+1, fn)
	}
	for v := 0; v < c.w.card[i]; v++ {
		c.pt.tagVals[i] = c.w.tagVal[v]
		if err := c.combos(i+1, fn); err != nil {
			return err
		}
	}
	return nil
}

func (c *tsClient) read(ctx context.Context, db driver.DB) error {
	w := c.w
	from, to := c.query(true)
	if c.native != nil {
		return c.nativeRead(ctx, from, to)
	}
	if w.span == 0 && w.groupBy == nil && w.downFn == "" {
		rec, err := db.Read(ctx, w.table, c.codec.key(&c.pt, from), nil)
		if err != nil || !w.dataIntegrity {
			return err
		}
		return c.verify(rec, from)
	}
	return c.aggregate(ctx, db, from, to, int((to-from)/w.interval)+1)
}

func (c *tsClient) scan(ctx context.Context, db driver.DB) error {
	from, to := c.query(false)
	if c.w.span == 0 {
		to = math.MaxInt64 // YCSB passes the scan length alone
	}
	if c.native != nil {
		n := c.scanLen.Next()
		if k := n - 1; k < (math.MaxInt64-from)/c.w.interval {
			to = min(to, from+c.w.interval*k)
		}
		_, err := c.nativeQuery(ctx, from, to, "", 0)
		return err
	}
	return c.aggregate(ctx, db, from, to, int(c.scanLen.Next()))
}

// aggregate reads every series of the query with one scan each and folds
// the values as the group-by and downsampling functions ask.
func (c *tsClient) aggregate(ctx context.Context, db driver.DB, from, to int64, n int) error {
	w := c.w
	fn := w.downFn
	if fn == "" {
		fn = w.groupFn
	}
	last := to // n points at most: no more buckets than that
	if k := int64(n - 1); k < (math.MaxInt64-from)/w.interval {
		last = min(to, from+w.interval*k)
	}
	c.bk.reset(from, last, w.downInterval)
	err := c.eachSeries(func() error {
		_, err := c.codec.scanSeries(ctx, db, w.table, &c.pt, from, to, n, w.valueKey, &c.bk)
		return err
	})
	if err == nil && fn != "" {
		_ = c.bk.fold(fn)
	}
	return err
}

// delete removes every point of the query's series and span; points
// already missing are no error (a time-series delete of nothing succeeds).
func (c *tsClient) delete(ctx context.Context, db driver.DB) error {
	w := c.w
	from, to := c.query(false)
	if c.native != nil {
		return c.nativeDelete(ctx, from, to)
	}
	return c.eachSeries(func() error {
		for ts := from; ts <= to; ts += w.interval {
			err := db.Delete(ctx, w.table, c.codec.key(&c.pt, ts))
			if err != nil && !errors.Is(err, errclass.ErrNotFound) {
				return err
			}
		}
		return nil
	})
}

// verify checks a point read against YCSB's validation function.
func (c *tsClient) verify(rec driver.Record, ts int64) error {
	c.pt.ts = ts
	want := c.w.validation(&c.pt)
	_, got, ok := c.codec.match(rec, &c.pt, c.w.valueKey)
	if !ok || int64(got) != want {
		return errclass.Wrap(errclass.Other, fmt.Errorf("dataintegrity: %s at %d: read value %v, expected %d", c.pt.measurement, ts, got, want))
	}
	return nil
}

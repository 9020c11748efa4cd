package ycsb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/workload/gen"
)

// Client is one client's generators and reusable buffers; it is used by one
// goroutine. See the package comment for what drivers may do with the
// records and field lists it passes.
type Client struct {
	w *Workload
	r *rand.Rand

	ops      *gen.Discrete
	keys     gen.Int64        // request distribution; nil for exponential
	exp      *gen.Exponential // requestdistribution=exponential
	field    *gen.Uniform     // which field a single-field read or write uses
	fieldLen gen.Int64
	scanLen  gen.Int64

	keyBuf    []byte
	all       recordBuf     // a record with every field (insert, writeallfields)
	one       driver.Record // a record with one field (update of one field)
	batch     []recordBuf   // Load with a BatchInserter
	batchKeys []string
	batchVals []driver.Record
	want      []byte // dataintegrity: the expected value of a field
}

// recordBuf is a Record whose values live in one reused byte slice.
type recordBuf struct {
	rec driver.Record
	buf []byte
}

func (w *Workload) newClient(id int, seed int64) (*Client, error) {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(id)))
	c := &Client{w: w, r: r, one: make(driver.Record, 1)}
	var err error
	if c.ops, err = gen.NewDiscrete(r, w.proportions[:]); err != nil {
		return nil, &genError{"readproportion", err}
	}
	if c.field, err = gen.NewUniform(r, 0, int64(len(w.fieldNames))-1); err != nil {
		return nil, &genError{"fieldcount", err}
	}
	switch w.fieldLenDist {
	case "constant":
		c.fieldLen = gen.Constant(w.fieldLen)
	case "uniform":
		c.fieldLen, err = gen.NewUniform(r, w.minFieldLen, w.fieldLen)
	case "zipfian":
		c.fieldLen, err = gen.NewZipfianRange(r, w.minFieldLen, w.fieldLen, gen.DefaultZipfianConstant)
	}
	if err != nil {
		return nil, &genError{"fieldlengthdistribution", err}
	}
	switch w.scanDist {
	case "uniform":
		c.scanLen, err = gen.NewUniform(r, w.minScan, w.maxScan)
	case "zipfian":
		c.scanLen, err = gen.NewZipfianRange(r, w.minScan, w.maxScan, gen.DefaultZipfianConstant)
	}
	if err != nil {
		return nil, &genError{"scanlengthdistribution", err}
	}
	if err := c.newKeyChooser(); err != nil {
		key := "requestdistribution"
		if w.requestDist == "hotspot" {
			key = "hotspotdatafraction" // the only way left to fail: an empty hot or cold set
		}
		return nil, &genError{key, err}
	}
	return c, nil
}

// genError is a generator refusing its settings, with the property to blame.
type genError struct {
	key string
	err error
}

func (e *genError) Error() string { return e.key + ": " + e.err.Error() }
func (e *genError) Unwrap() error { return e.err }

// newKeyChooser builds the request distribution as YCSB's CoreWorkload.init.
func (c *Client) newKeyChooser() error {
	w := c.w
	if w.recordCount < 1 || w.insertCount < 1 {
		return nil // insert-only workload (checked in New)
	}
	lo, hi := w.insertStart, w.insertStart+w.insertCount-1
	var err error
	switch w.requestDist {
	case "uniform":
		c.keys, err = gen.NewUniform(c.r, lo, hi)
	case "zipfian":
		c.keys, err = gen.NewScrambledZipfian(c.r, lo, hi+1+w.expectedNewKeys, w.zipfConst)
	case "latest":
		c.keys, err = gen.NewSkewedLatest(c.r, w.insertSeq, w.zipfConst)
	case "hotspot":
		c.keys, err = gen.NewHotspot(c.r, lo, hi, w.hotData, w.hotOpn)
	case "sequential":
		c.keys = w.sequential
	case "exponential":
		c.exp, err = gen.NewExponential(c.r, w.expPercentile, float64(w.recordCount)*w.expFrac)
	}
	return err
}

// nextKeynum draws a key number among the acknowledged records, as YCSB: keys
// the distribution yields beyond the last acknowledged insert are redrawn;
// the exponential distribution counts back from that last key.
func (c *Client) nextKeynum() int64 {
	if c.exp != nil {
		for {
			if k := c.w.insertSeq.Last() - c.exp.Next(); k >= 0 {
				return k
			}
		}
	}
	for {
		if k := c.keys.Next(); k <= c.w.insertSeq.Last() {
			return k
		}
	}
}

func (c *Client) key(keynum int64) string {
	c.keyBuf = c.w.appendKey(c.keyBuf[:0], keynum)
	return string(c.keyBuf)
}

// Load inserts the next up to max records of [insertstart,
// insertstart+insertcount), taking them from the sequence shared by all
// clients; with a driver.BatchInserter and max > 1 in one call. Records whose
// insert fails are not retried (YCSB's default, retry limit 0): the error is
// returned and the load moves on.
func (c *Client) Load(ctx context.Context, db driver.DB, limit int) (int, error) {
	w := c.w
	first, n := w.keySeq.Claim(int64(max(limit, 1)), w.insertStart+w.insertCount)
	if n == 0 {
		return 0, nil
	}
	bi, isBatch := db.(driver.BatchInserter)
	if !isBatch || limit <= 1 {
		for i := int64(0); i < n; i++ {
			key := c.key(first + i)
			if err := db.Insert(ctx, w.table, key, c.values(&c.all, key)); err != nil {
				return int(i), fmt.Errorf("load %s: %w", key, err)
			}
		}
		return int(n), nil
	}
	for len(c.batch) < int(n) {
		c.batch = append(c.batch, recordBuf{})
	}
	c.batchKeys, c.batchVals = c.batchKeys[:0], c.batchVals[:0]
	for i := int64(0); i < n; i++ {
		key := c.key(first + i)
		c.batchKeys = append(c.batchKeys, key)
		c.batchVals = append(c.batchVals, c.values(&c.batch[i], key))
	}
	if err := bi.InsertBatch(ctx, w.table, c.batchKeys, c.batchVals); err != nil {
		return 0, fmt.Errorf("load %d records from %s: %w", n, c.batchKeys[0], err)
	}
	return int(n), nil
}

// Do performs one operation of the mix and returns its index in Ops.
func (c *Client) Do(ctx context.Context, db driver.DB) (int, error) {
	op := c.ops.Next()
	var err error
	switch op {
	case OpRead:
		err = c.read(ctx, db)
	case OpUpdate:
		key := c.key(c.nextKeynum())
		err = db.Update(ctx, c.w.table, key, c.writeValues(key))
	case OpInsert:
		err = c.insert(ctx, db)
	case OpScan:
		key := c.key(c.nextKeynum())
		_, err = db.Scan(ctx, c.w.table, key, int(c.scanLen.Next()), c.oneFieldOrNil())
	case OpReadModifyWrite:
		err = c.readModifyWrite(ctx, db)
	case OpDelete:
		err = db.Delete(ctx, c.w.table, c.key(c.nextKeynum()))
	}
	return op, err
}

func (c *Client) oneFieldOrNil() []string {
	if c.w.readAll {
		return nil
	}
	return c.w.fieldOne[c.field.Next()]
}

func (c *Client) read(ctx context.Context, db driver.DB) error {
	key := c.key(c.nextKeynum())
	fields := c.w.readFields // nil, or every field (dataintegrity, readallfieldsbyname)
	if !c.w.readAll {
		fields = c.w.fieldOne[c.field.Next()]
	}
	rec, err := db.Read(ctx, c.w.table, key, fields)
	if err != nil || !c.w.dataIntegrity {
		return err
	}
	return c.verify(key, fields, rec)
}

func (c *Client) readModifyWrite(ctx context.Context, db driver.DB) error {
	key := c.key(c.nextKeynum())
	fields := c.oneFieldOrNil() // YCSB reads all fields by nil here, even with dataintegrity
	values := c.writeValues(key)
	rec, err := db.Read(ctx, c.w.table, key, fields)
	if err != nil {
		return err
	}
	if err := db.Update(ctx, c.w.table, key, values); err != nil {
		return err
	}
	if c.w.dataIntegrity {
		return c.verify(key, fields, rec)
	}
	return nil
}

// insert adds a record after the loaded ones; its key becomes visible to the
// other operations once acknowledged, whether the insert succeeded or not
// (as YCSB), so a failed insert shows later as reads of a missing key.
func (c *Client) insert(ctx context.Context, db driver.DB) error {
	keynum := c.w.insertSeq.Next()
	key := c.key(keynum)
	err := db.Insert(ctx, c.w.table, key, c.values(&c.all, key))
	if ackErr := c.w.insertSeq.Acknowledge(keynum); ackErr != nil {
		return errors.Join(err, errclass.Wrap(errclass.Other, ackErr))
	}
	return err
}

// writeValues is what an update writes: every field or one random field.
func (c *Client) writeValues(key string) driver.Record {
	if c.w.writeAll {
		return c.values(&c.all, key)
	}
	clear(c.one)
	f := c.w.fieldNames[c.field.Next()]
	n := int(c.fieldLen.Next())
	c.all.buf = growBuf(c.all.buf, n)
	v := c.all.buf[:n]
	c.fill(v, key, f)
	c.one[f] = v
	return c.one
}

// values fills rb with a value for every field and returns its record.
func (c *Client) values(rb *recordBuf, key string) driver.Record {
	w := c.w
	if rb.rec == nil {
		rb.rec = make(driver.Record, len(w.fieldNames))
	}
	rb.buf = growBuf(rb.buf, len(w.fieldNames)*int(w.fieldLen))
	off := 0
	for _, f := range w.fieldNames {
		n := int(c.fieldLen.Next())
		v := rb.buf[off : off+n : off+n]
		off += n
		c.fill(v, key, f)
		rb.rec[f] = v
	}
	return rb.rec
}

func growBuf(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// fill writes a value: the deterministic one with dataintegrity, otherwise
// random printable bytes (' ' to '_', 6 random bits each, like YCSB's
// RandomByteIterator) so that values do not compress.
func (c *Client) fill(v []byte, key, field string) {
	if c.w.dataIntegrity {
		c.want = appendDeterministic(c.want[:0], key, field, len(v))
		copy(v, c.want)
		return
	}
	// Eight bytes per random word: keep 6 bits of each byte and add ' '
	// (no carry between bytes: 0x3f+0x20 < 0x100).
	for len(v) >= 8 {
		binary.LittleEndian.PutUint64(v, c.r.Uint64()&0x3f3f3f3f3f3f3f3f+0x2020202020202020)
		v = v[8:]
	}
	x := c.r.Uint64()
	for i := range v {
		v[i] = ' ' + byte(x&63)
		x >>= 8
	}
}

// verify checks what a read returned against the deterministic values
// (dataintegrity). fields nil means all fields were asked for.
func (c *Client) verify(key string, fields []string, rec driver.Record) error {
	if len(rec) == 0 {
		return errclass.Wrap(errclass.Other, fmt.Errorf("dataintegrity: key %s: read returned no fields", key))
	}
	if fields == nil {
		fields = c.w.fieldNames
	}
	size := int(c.w.fieldLen)
	for _, f := range fields {
		got, ok := rec[f]
		if !ok {
			return errclass.Wrap(errclass.Other, fmt.Errorf("dataintegrity: key %s: field %s missing from the read", key, f))
		}
		c.want = appendDeterministic(c.want[:0], key, f, size)
		if !bytes.Equal(got, c.want) {
			return errclass.Wrap(errclass.Other, fmt.Errorf(
				"dataintegrity: key %s field %s: read %d bytes %q, expected %d bytes %q",
				key, f, len(got), abbrev(got), len(c.want), abbrev(c.want)))
		}
	}
	return nil
}

func abbrev(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// appendDeterministic appends YCSB's buildDeterministicValue(key, field) of
// the given size: "key:field", then ":" and the Java String.hashCode of
// everything so far, repeated until size, then cut to size.
func appendDeterministic(dst []byte, key, field string, size int) []byte {
	start := len(dst)
	dst = append(dst, key...)
	dst = append(dst, ':')
	dst = append(dst, field...)
	var h int32 // Java's String.hashCode, kept up to date as bytes are appended
	for _, b := range dst[start:] {
		h = 31*h + int32(b)
	}
	for len(dst)-start < size {
		dst = append(dst, ':')
		h = 31*h + ':'
		n := len(dst)
		dst = strconv.AppendInt(dst, int64(h), 10)
		for _, b := range dst[n:] {
			h = 31*h + int32(b)
		}
	}
	return dst[:start+size]
}

package timeseries

import (
	"bytes"
	"context"
	"strconv"

	"github.com/dbrig/dbrig/driver"
)

// How points are kept as records on a key-value driver.DB (see the package
// comment): as YCSB passes them (a field per tag, the timestamp and the
// value) or as one line of InfluxDB line protocol in the table's first
// field, which fits the fixed columns of the SQL drivers.
const (
	layoutAuto   = "auto"
	layoutFields = "fields"
	layoutLine   = "line"
)

// tsDigits pads timestamps in record keys so that a series' keys sort by
// time (int64's 19 digits; timestamps are never negative, New checks).
const tsDigits = 19

// point is one record the generators produce: a series (measurement and
// tags), a time and named values. Its slices are reused between points.
type point struct {
	measurement []byte
	tagKeys     []string
	tagVals     [][]byte
	ts          int64
	fieldNames  []string
	fieldVals   [][]byte
}

// codec turns points into record keys and records and back, with the
// delimiters of the workload. A client owns one: its buffers are reused.
type codec struct {
	delim, pair string // between key and tags (YCSB's deletedelimiter); between tag key and value
	tsKey       string // name of the timestamp in keys and in the fields layout
	lineField   string // the field that holds the line in the line layout
	line        bool   // layout chosen for the DB at hand

	rec  driver.Record
	buf  []byte
	keyb []byte
	pre  []byte // series prefix while matching
}

// useDB picks the layout for db when it is auto: lines for the SQL drivers
// (their tables have fixed field columns), YCSB's fields for the others.
func (c *codec) useDB(layout string, db driver.DB) {
	switch layout {
	case layoutLine:
		c.line = true
	case layoutFields:
		c.line = false
	default:
		_, sql := db.(driver.SQL)
		c.line = sql
	}
}

// appendSeries appends "measurement:tagk=tagv:…", YCSB's flattening of a
// series for a delete.
func (c *codec) appendSeries(dst []byte, p *point) []byte {
	dst = append(dst, p.measurement...)
	for i, k := range p.tagKeys {
		dst = append(dst, c.delim...)
		dst = append(dst, k...)
		dst = append(dst, c.pair...)
		dst = append(dst, p.tagVals[i]...)
	}
	return dst
}

// key returns the record key of p's series at ts: the series, then
// ":YCSBTS=" and ts zero-padded so keys sort by time within a series.
func (c *codec) key(p *point, ts int64) string {
	b := c.appendSeries(c.keyb[:0], p)
	b = append(b, c.delim...)
	b = append(b, c.tsKey...)
	b = append(b, c.pair...)
	b = appendPadded(b, ts)
	c.keyb = b
	return string(b)
}

func appendPadded(dst []byte, v int64) []byte {
	var d [20]byte
	s := strconv.AppendInt(d[:0], v, 10)
	for i := len(s); i < tsDigits; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// record returns p as a record, in rec (reused; the driver copies what it
// keeps, as the ycsb package's buffer contract says).
// A record is always given the same point shape, so its keys are
// overwritten, never cleared.
func (c *codec) record(p *point, rec driver.Record, buf *[]byte) driver.Record {
	b := (*buf)[:0]
	if c.line {
		b = appendLine(b, p)
		rec[c.lineField] = b
		*buf = b
		return rec
	}
	for i, k := range p.tagKeys {
		rec[k] = p.tagVals[i]
	}
	b = strconv.AppendInt(b, p.ts, 10)
	rec[c.tsKey] = b
	for i, f := range p.fieldNames {
		rec[f] = p.fieldVals[i]
	}
	*buf = b
	return rec
}

// appendLine appends p in InfluxDB line protocol:
// measurement,tagk=tagv,… field=value,… timestamp.
func appendLine(dst []byte, p *point) []byte {
	dst = appendLineSeries(dst, p)
	for i, f := range p.fieldNames {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, f...)
		dst = append(dst, '=')
		dst = append(dst, p.fieldVals[i]...)
	}
	dst = append(dst, ' ')
	return strconv.AppendInt(dst, p.ts, 10)
}

func appendLineSeries(dst []byte, p *point) []byte {
	dst = append(dst, p.measurement...)
	for i, k := range p.tagKeys {
		dst = append(dst, ',')
		dst = append(dst, k...)
		dst = append(dst, '=')
		dst = append(dst, p.tagVals[i]...)
	}
	return append(dst, ' ')
}

// match tells whether rec is a point of p's series (a key-value scan runs on
// into the next series) and returns its time and the value of field.
func (c *codec) match(rec driver.Record, p *point, field string) (ts int64, v float64, ok bool) {
	if c.line {
		return c.matchLine(rec[c.lineField], p, field)
	}
	for i, k := range p.tagKeys {
		if !bytes.Equal(rec[k], p.tagVals[i]) {
			return 0, 0, false
		}
	}
	ts, err := strconv.ParseInt(string(rec[c.tsKey]), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	v, _ = strconv.ParseFloat(string(rec[field]), 64)
	return ts, v, true
}

func (c *codec) matchLine(line []byte, p *point, field string) (int64, float64, bool) {
	c.pre = appendLineSeries(c.pre[:0], p)
	if !bytes.HasPrefix(line, c.pre) {
		return 0, 0, false
	}
	rest := line[len(c.pre):]
	sp := bytes.LastIndexByte(rest, ' ')
	if sp < 0 {
		return 0, 0, false
	}
	ts, err := strconv.ParseInt(string(rest[sp+1:]), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	var v float64
	for _, kv := range bytes.Split(rest[:sp], []byte{','}) {
		if k, val, ok := bytes.Cut(kv, []byte{'='}); ok && string(k) == field {
			v, _ = strconv.ParseFloat(string(val), 64)
		}
	}
	return ts, v, true
}

// scanSeries reads the points of p's series in [from, to] with one scan
// of at most n records, and adds the value of field of each to b. It
// returns how many points it found.
func (c *codec) scanSeries(ctx context.Context, db driver.DB, table string, p *point, from, to int64, n int, field string, b *buckets) (int, error) {
	recs, err := db.Scan(ctx, table, c.key(p, from), n, nil)
	if err != nil {
		return 0, err
	}
	found := 0
	for _, r := range recs {
		ts, v, ok := c.match(r, p, field)
		if !ok || ts > to {
			break // past the series or the span: keys are in series, then time order
		}
		found++
		if b != nil {
			b.add(ts, v)
		}
	}
	return found, nil
}

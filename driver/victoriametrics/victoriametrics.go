// Package victoriametrics benchmarks VictoriaMetrics single-node through
// its HTTP API: points written as Influx line protocol (POST /write,
// split into victoriametrics.batchsize lines; a point's value of field f
// of measurement m becomes metric m_f with the point's tags as labels),
// raw points read with /api/v1/export, aggregates with MetricsQL range
// queries (/api/v1/query_range, nocache=1). It is a time-series store only
// (driver.Points): the record operations fail with a clear error.
//
// Aggregates are exact over buckets [From+i×Step, From+(i+1)×Step): each
// bucket is a rollup over the window (t−Step, t] at t = its end − 1ms
// (VictoriaMetrics keeps milliseconds), across the series with the outer
// function (avg is sum of sums ÷ sum of counts). Series are selected by
// each tag's set of values (k=~"v1|v2"): the union of the listed series
// when, as in the workloads, no other series has a mix of their values.
//
// The workload's table is not used. Data written is searchable after
// VictoriaMetrics' in-memory buffers are flushed (about a second);
// Flush forces it (/internal/force_flush).
package victoriametrics

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/lineproto"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// DB is a VictoriaMetrics server seen through HTTP. Safe for concurrent use.
type DB struct {
	*lineproto.Writer // victoriametrics.url, precision, batchsize, timeout, poolsize
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.Points        = (*DB)(nil)
	_ driver.Resetter      = (*DB)(nil)
	_ driver.Versioner     = (*DB)(nil)
	_ driver.Describer     = (*DB)(nil)
	_ driver.PointsFlusher = (*DB)(nil)
)

var errNoRecords = errclass.Wrap(errclass.Other, fmt.Errorf("victoriametrics keeps time series only: run a time-series workload (tsworkloada, devops)"))

// Open reads the victoriametrics.* properties and checks the server.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	d, err := fromProps(cfg.Props)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	if _, err := lineproto.Post(ctx, d.HTTP, d.Base+"/health", nil, nil); err != nil {
		return nil, fmt.Errorf("victoriametrics: open %s: %w", d.Base, err)
	}
	return d, nil
}

func fromProps(p *spec.Props) (*DB, error) {
	w, err := lineproto.NewWriter(p, "victoriametrics", "http://127.0.0.1:8428")
	if err != nil {
		return nil, err
	}
	return &DB{Writer: w}, nil
}

// WritePoints posts pts as line protocol to /write.
func (d *DB) WritePoints(ctx context.Context, _ string, pts []driver.Point) error {
	if err := d.Write(ctx, pts, func(prec string) string { return d.Base + "/write?precision=" + prec }); err != nil {
		return fmt.Errorf("victoriametrics: %w", err)
	}
	return nil
}

// Flush makes everything written searchable now.
func (d *DB) Flush(ctx context.Context) error {
	_, err := lineproto.Post(ctx, d.HTTP, d.Base+"/internal/force_flush", nil, nil)
	return err
}

// selector is the series of q as a MetricsQL selector: the metric name
// and each tag's values.
func selector(q driver.Query) string {
	vals := map[string][]string{}
	var keys []string
	for _, s := range q.Series {
		for _, t := range s {
			if _, ok := vals[t.Key]; !ok {
				keys = append(keys, t.Key)
			}
			if !contains(vals[t.Key], t.Value) {
				vals[t.Key] = append(vals[t.Key], t.Value)
			}
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(`{__name__=` + strconv.Quote(q.Measurement+"_"+q.Field))
	for _, k := range keys {
		v := vals[k]
		if len(v) == 1 {
			fmt.Fprintf(&b, ",%s=%s", k, strconv.Quote(v[0]))
			continue
		}
		for i := range v {
			v[i] = regexp.QuoteMeta(v[i])
		}
		fmt.Fprintf(&b, ",%s=~%s", k, strconv.Quote(strings.Join(v, "|")))
	}
	b.WriteString("}")
	return b.String()
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// QueryPoints answers q: export for points, query_range for aggregates.
func (d *DB) QueryPoints(ctx context.Context, _ string, q driver.Query) ([]driver.Series, error) {
	if len(q.Series) == 0 {
		return nil, errclass.Wrap(errclass.Other, fmt.Errorf("victoriametrics: a query names no series"))
	}
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	if q.Agg == "" {
		return d.export(ctx, q)
	}
	return d.aggregate(ctx, q)
}

// export reads the raw points of q's series in [From, To].
func (d *DB) export(ctx context.Context, q driver.Query) ([]driver.Series, error) {
	v := url.Values{"match[]": {selector(q)}, "start": {msSeconds(ceilMs(q.From))}, "end": {msSeconds(floorMs(q.To))}}
	out, err := lineproto.Post(ctx, d.HTTP, d.Base+"/api/v1/export?"+v.Encode(), nil, nil)
	if err != nil {
		return nil, fmt.Errorf("victoriametrics: export: %w", err)
	}
	var res []driver.Series
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var line struct {
			Metric     map[string]string `json:"metric"`
			Values     []float64         `json:"values"`
			Timestamps []int64           `json:"timestamps"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, errclass.Wrap(errclass.Other, fmt.Errorf("victoriametrics: export line: %w", err))
		}
		delete(line.Metric, "__name__")
		s := driver.Series{Tags: line.Metric}
		for i, ts := range line.Timestamps {
			if i < len(line.Values) {
				s.Times = append(s.Times, ts*1e6)
				s.Values = append(s.Values, line.Values[i])
			}
		}
		sortSeries(&s)
		if q.Last && len(s.Times) > 0 {
			n := len(s.Times) - 1
			s.Times, s.Values = s.Times[n:], s.Values[n:]
		}
		if len(s.Times) > 0 {
			res = append(res, s)
		}
	}
	return res, sc.Err()
}

// sortSeries orders a series' points by time (export gives them as stored).
func sortSeries(s *driver.Series) {
	if sort.SliceIsSorted(s.Times, func(i, j int) bool { return s.Times[i] < s.Times[j] }) {
		return
	}
	idx := make([]int, len(s.Times))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return s.Times[idx[i]] < s.Times[idx[j]] })
	t, v := make([]int64, len(idx)), make([]float64, len(idx))
	for i, k := range idx {
		t[i], v[i] = s.Times[k], s.Values[k]
	}
	s.Times, s.Values = t, v
}

// Reset deletes every series.
func (d *DB) Reset(ctx context.Context) error {
	v := url.Values{"match[]": {`{__name__=~".+"}`}}
	_, err := lineproto.Post(ctx, d.HTTP, d.Base+"/api/v1/admin/tsdb/delete_series?"+v.Encode(), []byte{}, nil)
	return err
}

// ServerVersion is the version label of vm_app_version in /metrics.
func (d *DB) ServerVersion(ctx context.Context) (string, error) {
	out, err := lineproto.Post(ctx, d.HTTP, d.Base+"/metrics", nil, nil)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(l, `vm_app_version{`); ok {
			if _, v, ok := strings.Cut(rest, `version="`); ok {
				v, _, _ = strings.Cut(v, `"`)
				return v, nil
			}
		}
	}
	return "victoria-metrics", nil
}

// Target is victoriametrics.url.
func (d *DB) Target() string { return d.Base }

func (d *DB) Read(context.Context, string, string, []string) (driver.Record, error) {
	return nil, errNoRecords
}
func (d *DB) Scan(context.Context, string, string, int, []string) ([]driver.Record, error) {
	return nil, errNoRecords
}
func (d *DB) Update(context.Context, string, string, driver.Record) error { return errNoRecords }
func (d *DB) Insert(context.Context, string, string, driver.Record) error { return errNoRecords }
func (d *DB) Delete(context.Context, string, string) error                { return errNoRecords }

// Close closes idle connections.
func (d *DB) Close() error {
	d.HTTP.CloseIdleConnections()
	return nil
}

var _ driver.Footprint = (*DB)(nil)

// DiskBytes flushes the in-memory buffers and sums vm_data_size_bytes
// (data and index) from /metrics: the whole server's, as it has one store.
func (d *DB) DiskBytes(ctx context.Context, _ string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	if err := d.Flush(ctx); err != nil {
		return 0, err
	}
	out, err := lineproto.Post(ctx, d.HTTP, d.Base+"/metrics", nil, nil)
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, l := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(l, "vm_data_size_bytes{") {
			continue
		}
		if f, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64); err == nil {
			sum += int64(f)
		}
	}
	return sum, nil
}

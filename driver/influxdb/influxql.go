package influxdb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/lineproto"
	"github.com/dbrig/dbrig/errclass"
)

// ident quotes an InfluxQL identifier.
func ident(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// literal quotes an InfluxQL string.
func literal(s string) string {
	return `'` + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + `'`
}

// seriesCond is the condition that selects one series by all its tags.
func seriesCond(tags []driver.Tag) string {
	parts := make([]string, len(tags))
	for i, t := range tags {
		parts[i] = ident(t.Key) + " = " + literal(t.Value)
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}

// influxAgg maps driver.Query's functions to InfluxQL's.
var influxAgg = map[string]string{driver.AggSum: "sum", driver.AggAvg: "mean", driver.AggMin: "min",
	driver.AggMax: "max", driver.AggCount: "count"}

// selectStmt is q as InfluxQL: the field, the series OR'ed, the span;
// GROUP BY * for the series' own points (raw or last), GROUP BY time with
// the buckets' offset for an aggregate.
func selectStmt(from string, q driver.Query) (string, error) {
	if len(q.Series) == 0 {
		return "", errclass.Wrap(errclass.Other, fmt.Errorf("influxdb: a query names no series"))
	}
	var b strings.Builder
	f := ident(q.Field)
	switch {
	case q.Agg != "":
		fn, ok := influxAgg[q.Agg]
		if !ok {
			return "", errclass.Wrap(errclass.Other, fmt.Errorf("influxdb: aggregate %q (expected sum, avg, min, max, count)", q.Agg))
		}
		fmt.Fprintf(&b, "SELECT %s(%s) FROM %s", fn, f, from)
	case q.Last:
		fmt.Fprintf(&b, "SELECT last(%s) FROM %s", f, from)
	default:
		fmt.Fprintf(&b, "SELECT %s FROM %s", f, from)
	}
	b.WriteString(" WHERE (")
	for i, s := range q.Series {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(seriesCond(s))
	}
	fmt.Fprintf(&b, ") AND time >= %d AND time <= %d", q.From, q.To)
	switch {
	case q.Agg != "" && q.Step > 0:
		fmt.Fprintf(&b, " GROUP BY time(%dns, %dns) fill(none)", q.Step, ((q.From%q.Step)+q.Step)%q.Step)
	case q.Agg == "":
		b.WriteString(" GROUP BY *")
	}
	return b.String(), nil
}

// response is /query's JSON.
type response struct {
	Results []struct {
		Series []struct {
			Name    string            `json:"name"`
			Tags    map[string]string `json:"tags"`
			Columns []string          `json:"columns"`
			Values  [][]any           `json:"values"`
		} `json:"series"`
		Error string `json:"error"`
	} `json:"results"`
	Error string `json:"error"`
}

// query runs stmt (POST for statements that change something) and returns
// the answer, failing on the first statement's error.
func (d *DB) query(ctx context.Context, stmt string, write bool) (*response, error) {
	v := url.Values{"db": {d.db}, "epoch": {"ns"}, "q": {stmt}}
	if d.rp != "" {
		v.Set("rp", d.rp)
	}
	d.auth(v)
	var body []byte
	hdr := map[string][]string{}
	u := d.Base + "/query"
	if write {
		body = []byte(v.Encode())
		hdr["Content-Type"] = []string{"application/x-www-form-urlencoded"}
	} else {
		u += "?" + v.Encode()
	}
	out, err := lineproto.Post(ctx, d.HTTP, u, body, hdr)
	if err != nil {
		return nil, err
	}
	var r response
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber() // nanosecond times do not fit a float64
	if err := dec.Decode(&r); err != nil {
		return nil, errclass.Wrap(errclass.Other, fmt.Errorf("query answer: %w", err))
	}
	if r.Error != "" {
		return nil, errclass.Wrap(errclass.Other, fmt.Errorf("%s", r.Error))
	}
	for _, res := range r.Results {
		if res.Error != "" {
			return nil, errclass.Wrap(errclass.Other, fmt.Errorf("%s", res.Error))
		}
	}
	return &r, nil
}

// toSeries turns the answer's rows (time, value) into driver.Series; an
// aggregate's buckets are one series with no tags.
func toSeries(r *response, q driver.Query) ([]driver.Series, error) {
	var out []driver.Series
	for _, res := range r.Results {
		for _, s := range res.Series {
			ds := driver.Series{Tags: s.Tags}
			if q.Agg != "" {
				ds.Tags = nil
			}
			for _, row := range s.Values {
				if len(row) < 2 || row[1] == nil {
					continue
				}
				tn, ok1 := row[0].(json.Number)
				vn, ok2 := row[1].(json.Number)
				t, err1 := tn.Int64()
				v, err2 := vn.Float64()
				if !ok1 || !ok2 || err1 != nil || err2 != nil {
					return nil, errclass.Wrap(errclass.Other, fmt.Errorf("influxdb: unexpected row %v", row))
				}
				ds.Times = append(ds.Times, t)
				ds.Values = append(ds.Values, v)
			}
			if q.Agg != "" && q.Step == 0 && len(ds.Times) > 0 {
				ds.Times[0] = q.From // min and max give their point's time
			}
			if len(ds.Times) > 0 {
				out = append(out, ds)
			}
		}
	}
	return out, nil
}

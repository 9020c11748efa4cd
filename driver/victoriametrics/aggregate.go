package victoriametrics

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/lineproto"
	"github.com/dbrig/dbrig/errclass"
)

// expr is q's aggregate of the series over windows of w ms, as MetricsQL.
func expr(q driver.Query, w int64) (string, error) {
	sel := fmt.Sprintf("%s[%dms]", selector(q), w)
	switch q.Agg {
	case driver.AggSum:
		return "sum(sum_over_time(" + sel + "))", nil
	case driver.AggMin:
		return "min(min_over_time(" + sel + "))", nil
	case driver.AggMax:
		return "max(max_over_time(" + sel + "))", nil
	case driver.AggCount:
		return "sum(count_over_time(" + sel + "))", nil
	case driver.AggAvg: // over all points, not the mean of the series' means
		return "sum(sum_over_time(" + sel + ")) / sum(count_over_time(" + sel + "))", nil
	}
	return "", errclass.Wrap(errclass.Other, fmt.Errorf("victoriametrics: aggregate %q (expected sum, avg, min, max, count)", q.Agg))
}

// aggregate answers an aggregate query: one range query for the whole
// buckets, one instant query for a last bucket cut short by To (or for
// the one bucket of Step 0).
func (d *DB) aggregate(ctx context.Context, q driver.Query) ([]driver.Series, error) {
	from, to := ceilMs(q.From), floorMs(q.To)
	step := q.Step / 1e6
	if q.Step > 0 && step < 1 {
		return nil, errclass.Wrap(errclass.Other, fmt.Errorf("victoriametrics: a bucket of %dns (VictoriaMetrics keeps milliseconds)", q.Step))
	}
	out := driver.Series{}
	full := int64(0)
	if step > 0 {
		full = (to - from + 1) / step
	}
	if full > 0 {
		e, err := expr(q, step)
		if err != nil {
			return nil, err
		}
		v := url.Values{"query": {e}, "nocache": {"1"}, "step": {strconv.FormatInt(step, 10) + "ms"},
			"start": {msSeconds(from + step - 1)}, "end": {msSeconds(from + full*step - 1)}}
		if err := d.promQuery(ctx, "/api/v1/query_range", v, func(ms int64, val float64) {
			out.Times = append(out.Times, (ms+1-step)*1e6)
			out.Values = append(out.Values, val)
		}); err != nil {
			return nil, err
		}
	}
	if start := from + full*step; start <= to {
		e, err := expr(q, to-start+1)
		if err != nil {
			return nil, err
		}
		v := url.Values{"query": {e}, "nocache": {"1"}, "time": {msSeconds(to)}}
		if err := d.promQuery(ctx, "/api/v1/query", v, func(_ int64, val float64) {
			out.Times = append(out.Times, start*1e6)
			out.Values = append(out.Values, val)
		}); err != nil {
			return nil, err
		}
	}
	if len(out.Times) == 0 {
		return nil, nil
	}
	if q.Step == 0 || from*1e6 != q.From {
		out.Times[0] = q.From // the first bucket starts at From, not at its millisecond
	}
	return []driver.Series{out}, nil
}

func floorMs(ns int64) int64 {
	ms := ns / 1e6
	if ns < 0 && ns%1e6 != 0 {
		ms--
	}
	return ms
}

func ceilMs(ns int64) int64 { return -floorMs(-ns) }

func msSeconds(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64) }

// promQuery runs a Prometheus-API query and calls fn for every sample of
// every series (the aggregates have one), time in ms.
func (d *DB) promQuery(ctx context.Context, path string, v url.Values, fn func(ms int64, v float64)) error {
	out, err := lineproto.Post(ctx, d.HTTP, d.Base+path+"?"+v.Encode(), nil, nil)
	if err != nil {
		return fmt.Errorf("victoriametrics: %s: %w", path, err)
	}
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value  []any   `json:"value"`
				Values [][]any `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return errclass.Wrap(errclass.Other, fmt.Errorf("victoriametrics: %s answer: %w", path, err))
	}
	if r.Status != "success" {
		return errclass.Wrap(errclass.Other, fmt.Errorf("victoriametrics: %s: %s", path, r.Error))
	}
	for _, res := range r.Data.Result {
		samples := res.Values
		if res.Value != nil {
			samples = append(samples, res.Value)
		}
		for _, s := range samples {
			if len(s) != 2 {
				continue
			}
			t, ok1 := s[0].(float64)
			vs, ok2 := s[1].(string)
			val, err := strconv.ParseFloat(vs, 64)
			if !ok1 || !ok2 || err != nil {
				return errclass.Wrap(errclass.Other, fmt.Errorf("victoriametrics: %s: unexpected sample %v", path, s))
			}
			if !math.IsNaN(val) {
				fn(int64(math.Round(t*1000)), val)
			}
		}
	}
	return nil
}

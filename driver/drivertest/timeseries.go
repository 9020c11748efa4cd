package drivertest

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
)

// PointsHarness tells RunPoints how to reach a driver.Points.
type PointsHarness struct {
	// Open returns the driver under test (closed by the suite); table is
	// the fresh table name the suite writes to (as Harness.Open's).
	Open func(t *testing.T, table string) driver.DB
	// Settle, when set, makes what was written visible to queries
	// (VictoriaMetrics' flush of its in-memory buffers).
	Settle func(ctx context.Context, db driver.DB) error
	// NoReplace is set for a store where a point written again at the same
	// series and time does not replace the old one (VictoriaMetrics keeps
	// the bigger value): the suite does not check it.
	NoReplace bool
}

// tsCase is the data RunPoints writes: series × points, 10 s apart from a
// time that is no multiple of a minute (buckets must start at From, not at
// the epoch's multiples), values with two decimals, some negative.
type tsCase struct {
	m      string
	series [][]driver.Tag
	times  []int64
	vals   map[string][][]float64 // field → series → point
}

const tsInterval = int64(10 * time.Second)

func newTSCase(r *rand.Rand) *tsCase {
	c := &tsCase{m: fmt.Sprintf("dt%08x", r.Uint32()), vals: map[string][][]float64{}}
	for _, h := range []string{"h0", "h 1", "h,2=x"} { // escaping: space, comma, equals
		c.series = append(c.series, []driver.Tag{{Key: "host", Value: h}, {Key: "region", Value: "eu-" + h[:2]}})
	}
	t0 := int64(1_451_606_437) * int64(time.Second)
	for i := 0; i < 50; i++ {
		c.times = append(c.times, t0+int64(i)*tsInterval)
	}
	for _, f := range []string{"user", "idle"} {
		c.vals[f] = make([][]float64, len(c.series))
		for s := range c.series {
			for range c.times {
				c.vals[f][s] = append(c.vals[f][s], float64(r.IntN(20000)-5000)/100)
			}
		}
	}
	return c
}

// points returns every point in a shuffled order (out of order arrival).
func (c *tsCase) points(r *rand.Rand) []driver.Point {
	var pts []driver.Point
	for s, tags := range c.series {
		for i, ts := range c.times {
			p := driver.Point{Measurement: c.m, Tags: tags, Time: ts}
			for _, f := range []string{"user", "idle"} {
				p.Fields = append(p.Fields, driver.Field{Name: f, Value: strconv.AppendFloat(nil, c.vals[f][s][i], 'f', 2, 64)})
			}
			pts = append(pts, p)
		}
	}
	r.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	return pts
}

// reference is what q must answer, computed from the case.
func (c *tsCase) reference(q driver.Query) []driver.Series {
	var out []driver.Series
	agg := driver.Series{}
	accs := map[int64][]float64{}
	for s, tags := range c.series {
		if !slices.ContainsFunc(q.Series, func(x []driver.Tag) bool { return slices.Equal(x, tags) }) {
			continue
		}
		one := driver.Series{Tags: tagMap(tags)}
		for i, ts := range c.times {
			if ts < q.From || ts > q.To {
				continue
			}
			v := c.vals[q.Field][s][i]
			if q.Agg != "" {
				b := q.From
				if q.Step > 0 {
					b += (ts - q.From) / q.Step * q.Step
				}
				accs[b] = append(accs[b], v)
				continue
			}
			one.Times = append(one.Times, ts)
			one.Values = append(one.Values, v)
		}
		if q.Last && len(one.Times) > 0 {
			n := len(one.Times) - 1
			one.Times, one.Values = one.Times[n:], one.Values[n:]
		}
		if len(one.Times) > 0 {
			out = append(out, one)
		}
	}
	if q.Agg == "" {
		return out
	}
	for _, b := range slices.Sorted(maps.Keys(accs)) {
		agg.Times = append(agg.Times, b)
		agg.Values = append(agg.Values, fold(q.Agg, accs[b]))
	}
	if len(agg.Times) == 0 {
		return nil
	}
	return []driver.Series{agg}
}

func fold(fn string, vs []float64) float64 {
	switch fn {
	case driver.AggCount:
		return float64(len(vs))
	case driver.AggMin:
		return slices.Min(vs)
	case driver.AggMax:
		return slices.Max(vs)
	}
	var s float64
	for _, v := range vs {
		s += v
	}
	if fn == driver.AggAvg {
		return s / float64(len(vs))
	}
	return s
}

func tagMap(tags []driver.Tag) map[string]string {
	m := map[string]string{}
	for _, t := range tags {
		m[t.Key] = t.Value
	}
	return m
}

// RunPoints checks a driver.Points: what is written is read back with its
// tags and timestamps exact, the span's ends included; Last is the newest
// point; every aggregate matches a reference computed here, in buckets
// from From; a point written again replaces the old one.
func RunPoints(t *testing.T, h PointsHarness) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	table := fmt.Sprintf("ts%08x", r.Uint32())
	db := h.Open(t, table)
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	p, ok := db.(driver.Points)
	if !ok {
		t.Fatalf("%T does not implement driver.Points", db)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := newTSCase(r)
	pts := c.points(r)
	for i := 0; i < len(pts); i += 40 { // several requests, out of order
		if err := p.WritePoints(ctx, table, pts[i:min(i+40, len(pts))]); err != nil {
			t.Fatalf("WritePoints: %v", err)
		}
	}
	settle := func() {
		if h.Settle != nil {
			if err := h.Settle(ctx, db); err != nil {
				t.Fatalf("settle: %v", err)
			}
		}
	}
	settle()
	first, last := c.times[0], c.times[len(c.times)-1]
	all := c.series
	queries := []struct {
		name string
		q    driver.Query
	}{
		{"raw one series", driver.Query{Field: "user", Series: all[1:2], From: first, To: last}},
		{"raw all series, inner span, ends included", driver.Query{Field: "idle", Series: all, From: c.times[3], To: c.times[17]}},
		{"raw span between points", driver.Query{Field: "user", Series: all[:1], From: c.times[3] + 1, To: c.times[5] - 1}},
		{"last", driver.Query{Field: "user", Series: all, From: first, To: c.times[20], Last: true}},
		{"no points", driver.Query{Field: "user", Series: all[:1], From: last + 1, To: last + 1000}},
	}
	for _, fn := range []string{driver.AggSum, driver.AggAvg, driver.AggMin, driver.AggMax, driver.AggCount} {
		queries = append(queries,
			struct {
				name string
				q    driver.Query
			}{fn + " by minute, cut short", driver.Query{Field: "user", Series: all[:2], From: c.times[2], To: c.times[40], Agg: fn, Step: int64(time.Minute)}},
			struct {
				name string
				q    driver.Query
			}{fn + " whole span", driver.Query{Field: "idle", Series: all, From: first, To: last, Agg: fn}})
	}
	for _, tc := range queries {
		tc.q.Measurement = c.m
		got, err := p.QueryPoints(ctx, table, tc.q)
		if err != nil {
			t.Errorf("%s: QueryPoints: %v", tc.name, err)
			continue
		}
		if msg := sameSeries(got, c.reference(tc.q)); msg != "" {
			t.Errorf("%s: %s", tc.name, msg)
		}
	}
	if h.NoReplace {
		return
	}
	// A point written again replaces the old one.
	again := driver.Point{Measurement: c.m, Tags: all[0], Time: c.times[7], Fields: []driver.Field{{Name: "user", Value: []byte("12.5")}, {Name: "idle", Value: []byte("1")}}}
	if err := p.WritePoints(ctx, table, []driver.Point{again}); err != nil {
		t.Fatalf("WritePoints again: %v", err)
	}
	settle()
	got, err := p.QueryPoints(ctx, table, driver.Query{Measurement: c.m, Field: "user", Series: all[:1], From: c.times[7], To: c.times[7]})
	if err != nil {
		t.Fatalf("QueryPoints after rewrite: %v", err)
	}
	if len(got) != 1 || len(got[0].Values) != 1 || got[0].Values[0] != 12.5 {
		t.Errorf("a point written again: read %+v, expected the one value 12.5", got)
	}
}

// sameSeries compares in any order of series; values to 1e-9 relative.
func sameSeries(got, want []driver.Series) string {
	key := func(s driver.Series) string { return fmt.Sprint(s.Tags) }
	sortS := func(ss []driver.Series) {
		slices.SortFunc(ss, func(a, b driver.Series) int {
			if key(a) < key(b) {
				return -1
			}
			if key(a) > key(b) {
				return 1
			}
			return 0
		})
	}
	sortS(got)
	sortS(want)
	if len(got) != len(want) {
		return fmt.Sprintf("%d series, expected %d: got %+v, expected %+v", len(got), len(want), got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if len(g.Tags) == 0 && len(w.Tags) == 0 {
			g.Tags, w.Tags = nil, nil
		}
		if key(g) != key(w) {
			return fmt.Sprintf("series tags %v, expected %v", g.Tags, w.Tags)
		}
		if !slices.Equal(g.Times, w.Times) {
			return fmt.Sprintf("series %v: times %v, expected %v", w.Tags, g.Times, w.Times)
		}
		for j := range g.Values {
			if d := math.Abs(g.Values[j] - w.Values[j]); d > 1e-9*math.Max(1, math.Abs(w.Values[j])) {
				return fmt.Sprintf("series %v at %d: value %v, expected %v", w.Tags, g.Times[j], g.Values[j], w.Values[j])
			}
		}
	}
	return ""
}

package driver

import (
	"context"
	"strings"
)

// Points is implemented by a driver that stores time series natively
// (InfluxDB, VictoriaMetrics, PostgreSQL's time-series table). The
// time-series workloads write and query through it when the driver has it,
// and keep points as records (Insert, Scan) otherwise.
//
// Times are Unix nanoseconds; a store that keeps a coarser precision
// (VictoriaMetrics: milliseconds) truncates. table is the workload's table
// property: a driver may keep each table's points apart or ignore it.
type Points interface {
	// WritePoints writes pts in one request where the system allows. A
	// point written again at the same series and time replaces the old one.
	// pts and everything they reference belong to the caller once
	// WritePoints returns: a driver copies what it keeps.
	WritePoints(ctx context.Context, table string, pts []Point) error
	// QueryPoints answers q (see Query).
	QueryPoints(ctx context.Context, table string, q Query) ([]Series, error)
}

// PointDeleter is implemented by a Points driver that can delete the points
// of a series in a time span (YCSB's TimeSeriesWorkload's DELETE).
type PointDeleter interface {
	// DeletePoints removes the points of q.Series in [q.From, q.To]; q.Field,
	// q.Agg and q.Last do not apply. Deleting nothing is no error.
	DeletePoints(ctx context.Context, table string, q Query) error
}

// Tag is one tag (label) of a series.
type Tag struct{ Key, Value string }

// Field is one named value of a point, as decimal text (what
// strconv.AppendFloat or AppendInt give): the form line protocol and SQL
// take, so a value is not formatted twice on its way.
type Field struct {
	Name  string
	Value []byte
}

// Point is one point of a series: a measurement (metric), its tags in a
// fixed order, a time in Unix nanoseconds and one or more values.
type Point struct {
	Measurement string
	Tags        []Tag
	Time        int64
	Fields      []Field
}

// Aggregation functions a Query may name.
const (
	AggSum   = "sum"
	AggAvg   = "avg"
	AggMin   = "min"
	AggMax   = "max"
	AggCount = "count"
)

// Query asks for one field of some series of a measurement in a closed time
// span [From, To] (Unix nanoseconds):
//
//   - Agg == "" and !Last: every point, as one Series per series (its tags
//     and the points in time order);
//   - Last: the newest point in the span of each series;
//   - Agg set: the values of all the series together folded by Agg in
//     buckets [From + i×Step, From + (i+1)×Step) (Step 0: one bucket, the
//     whole span), as one Series with no tags whose Times are the buckets'
//     starts; a bucket without points is left out.
type Query struct {
	Measurement string
	Field       string
	// Series are the series read, each by all its tags as written (the
	// caller knows them: a dashboard's host list, YCSB's tag values).
	Series   [][]Tag
	From, To int64
	Last     bool
	Agg      string
	Step     int64
}

// Series is the result of a Query for one series (or, aggregated, for all).
type Series struct {
	Tags   map[string]string
	Times  []int64
	Values []float64
}

// SeriesKey is a series' identity as one string: the measurement and the
// tags sorted by key, "cpu,hostname=h1,region=r". Drivers that index series
// by a key (PostgreSQL's time-series table) use it; tests compare with it.
func SeriesKey(measurement string, tags []Tag) string {
	var b strings.Builder
	b.WriteString(measurement)
	sorted := tags
	if !tagsSorted(tags) {
		sorted = append([]Tag(nil), tags...)
		for i := 1; i < len(sorted); i++ { // few tags: insertion sort
			for j := i; j > 0 && sorted[j].Key < sorted[j-1].Key; j-- {
				sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
			}
		}
	}
	for _, t := range sorted {
		b.WriteByte(',')
		b.WriteString(t.Key)
		b.WriteByte('=')
		b.WriteString(t.Value)
	}
	return b.String()
}

func tagsSorted(tags []Tag) bool {
	for i := 1; i < len(tags); i++ {
		if tags[i].Key < tags[i-1].Key {
			return false
		}
	}
	return true
}

// Footprint is implemented by a Points driver that can tell how many bytes
// the points of a table take on disk now, index and write-ahead log
// included (its compression: bytes per point after a load).
type Footprint interface {
	DiskBytes(ctx context.Context, table string) (int64, error)
}

// PointsFlusher is implemented by a Points driver whose store makes
// acknowledged points searchable only after a while (VictoriaMetrics'
// in-memory buffers): Flush makes everything written so far searchable,
// before a read-back of what was written (verify: true).
type PointsFlusher interface {
	Flush(ctx context.Context) error
}

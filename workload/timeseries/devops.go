package timeseries

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload"
)

// DevopsName is the workload property value (and built-in file) of the
// devops ingest workload.
const DevopsName = "devops"

// Devops operation indexes, in the order of Ops.
const (
	DevopsInsert = iota
	DevopsLastPoint
	DevopsRange
	DevopsGroupBy
	numDevopsOps
)

var devopsOps = [numDevopsOps]string{"INSERT", "LASTPOINT", "RANGE", "GROUPBY"}

var devopsPropKeys = [numDevopsOps]string{"devops.insertproportion", "devops.lastpointproportion", "devops.rangeproportion", "devops.groupbyproportion"}

var devopsPropDefaults = [numDevopsOps]float64{0.9, 0.04, 0.03, 0.03}

// cpuFields are TSBS's cpu measurement fields, the devops metrics in order.
var cpuFields = []string{"usage_user", "usage_system", "usage_idle", "usage_nice", "usage_iowait",
	"usage_irq", "usage_softirq", "usage_steal", "usage_guest", "usage_guest_nice"}

// regions are TSBS's devops regions; a host's region and datacenter follow
// from its number.
var regions = []string{"us-east-1", "us-west-1", "us-west-2", "eu-west-1", "eu-central-1",
	"ap-southeast-1", "ap-southeast-2", "ap-northeast-1", "sa-east-1"}

// devopsTags are the tags of every point; hostname identifies the series.
var devopsTags = []string{"hostname", "region", "datacenter"}

// DevopsProps declares the devops.* properties (for `dbrig` listings and
// the unknown-key check).
func DevopsProps() []spec.Decl {
	return []spec.Decl{
		{Key: "devops.hosts", Type: "int", Default: "100", Doc: "hosts, each one series of the cpu measurement (>= threadcount: each client writes its own hosts)"},
		{Key: "devops.metrics", Type: "int", Default: "10", Doc: "values per point: TSBS's cpu fields usage_user … usage_guest_nice, then metric_10 …"},
		{Key: "devops.interval", Type: "duration", Default: "10s", Doc: "time between two points of a host"},
		{Key: "devops.start", Type: "string", Default: "2016-01-01T00:00:00Z", Doc: "time of the first point (RFC 3339); timestamps are Unix nanoseconds"},
		{Key: "devops.batch", Type: "int", Default: "100", Doc: "points one INSERT operation writes (one InsertBatch where the driver has it)"},
		{Key: "devops.outoforder", Type: "float", Default: "0", Doc: "fraction of points that arrive late (held back, then written after newer points)"},
		{Key: "devops.outoforder.intervals", Type: "int", Default: "5", Doc: "a late point is written when its host's newest point is 1 to this many intervals newer"},
		{Key: "devops.query.range", Type: "duration", Default: "1h", Doc: "time span of RANGE and GROUPBY queries (>= devops.interval)"},
		{Key: "devops.groupby.hosts", Type: "int", Default: "8", Doc: "hosts a GROUPBY query aggregates over"},
		{Key: "devops.groupby.function", Type: "string", Default: "max", Doc: "aggregation of a GROUPBY query: " + strings.Join(aggFuncs, ", ")},
		{Key: "devops.groupby.bucket", Type: "duration", Default: "1m", Doc: "GROUPBY time buckets (>= devops.interval, <= devops.query.range)"},
		{Key: "devops.insertproportion", Type: "float", Default: "0.9", Doc: "share of INSERT (a batch of points)"},
		{Key: "devops.lastpointproportion", Type: "float", Default: "0.04", Doc: "share of LASTPOINT (newest point of a host)"},
		{Key: "devops.rangeproportion", Type: "float", Default: "0.03", Doc: "share of RANGE (one metric of one host over devops.query.range)"},
		{Key: "devops.groupbyproportion", Type: "float", Default: "0.03", Doc: "share of GROUPBY (one metric of devops.groupby.hosts hosts, aggregated per bucket)"},
	}
}

// Devops is the devops ingest workload. It is safe for concurrent use by
// its Clients.
type Devops struct {
	table, layout, lineField string
	hosts                    int
	metrics                  []string
	interval, start          int64 // nanoseconds
	batch                    int
	ooo                      float64
	oooMax                   int64
	span, bucket             int64 // nanoseconds
	gbHosts                  int
	gbFn                     string
	proportions              [numDevopsOps]float64
	threads                  int
	loadCount                int64
	runOffset                int64
	hostTags                 [][][]byte     // per host: hostname, region, datacenter
	hostSeries               [][]driver.Tag // the same, for a driver.Points
	// latest[i] is the newest interval client slice i has written every
	// in-order point of (-1: none yet); LASTPOINT and ranges read up to it.
	latest []atomic.Int64
	// handoff[i] is load client i's cursor when it finished: run client i
	// goes on from it (late points included), so the stream has no gap.
	// Without a load in this process, run writes begin at runOffset.
	handoff []atomic.Pointer[dcursor]
	fp      footprint
	cents   [][]byte // a value's text by hundredths (centsText), shared by the clients
}

var _ workload.Workload = (*Devops)(nil)

// IsDevops tells whether the properties choose the devops workload.
func IsDevops(p *spec.Props) bool { return strings.TrimSpace(p.String("workload", "")) == DevopsName }

// NewDevops reads the devops.* properties (and table, recordcount,
// threadcount); every bad value is a *spec.PropError.
func NewDevops(p *spec.Props) (*Devops, error) {
	p.Known("workload")
	p.Declare(DevopsProps()...)
	w := &Devops{cents: centsText()}
	if err := w.readSeries(p); err != nil {
		return nil, err
	}
	if err := w.readIngest(p); err != nil {
		return nil, err
	}
	if err := w.readQueries(p); err != nil {
		return nil, err
	}
	w.derive()
	return w, nil
}

func (w *Devops) readSeries(p *spec.Props) error {
	var err error
	w.table = nonEmpty(p, "table", "usertable")
	if w.layout, err = p.Choice("timeseries.layout", layoutAuto, layoutFields, layoutLine); err != nil {
		return err
	}
	w.lineField = p.String("fieldnameprefix", "field") + "0"
	threads, err := p.IntMin("threadcount", 1, 1)
	if err != nil {
		return err
	}
	w.threads = int(threads)
	if w.hosts, err = intIn(p, "devops.hosts", 100, 1, 1<<20); err != nil {
		return err
	}
	if w.hosts < w.threads {
		return p.Errorf("devops.hosts", "an integer >= threadcount (%d): each client writes its own hosts", w.threads)
	}
	m, err := intIn(p, "devops.metrics", int64(len(cpuFields)), 1, 1000)
	if err != nil {
		return err
	}
	for i := 0; i < m; i++ {
		if i < len(cpuFields) {
			w.metrics = append(w.metrics, cpuFields[i])
		} else {
			w.metrics = append(w.metrics, "metric_"+strconv.Itoa(i))
		}
	}
	if int64(w.hosts)*int64(m) > 1<<22 {
		return p.Errorf("devops.metrics", "at most %d with %d hosts: devops.hosts × devops.metrics <= 2^22 (each client keeps a value per host and metric)", max(1, (1<<22)/w.hosts), w.hosts)
	}
	w.hostTags = make([][][]byte, w.hosts)
	for h := range w.hostTags {
		region := regions[h%len(regions)]
		dc := region + string(rune('a'+(h/len(regions))%3))
		w.hostTags[h] = [][]byte{[]byte("host_" + strconv.Itoa(h)), []byte(region), []byte(dc)}
	}
	w.hostSeries = make([][]driver.Tag, w.hosts)
	for h, tv := range w.hostTags {
		for i, k := range devopsTags {
			w.hostSeries[h] = append(w.hostSeries[h], driver.Tag{Key: k, Value: string(tv[i])})
		}
	}
	return nil
}

func (w *Devops) readIngest(p *spec.Props) error {
	iv, err := p.Duration("devops.interval", 10*time.Second)
	if err != nil {
		return err
	}
	if iv < time.Microsecond || iv > 24*time.Hour {
		return p.Errorf("devops.interval", "a duration from 1µs to 24h")
	}
	w.interval = int64(iv)
	v := strings.TrimSpace(p.String("devops.start", "2016-01-01T00:00:00Z"))
	t, err := time.Parse(time.RFC3339, v)
	if err != nil || t.Before(time.Unix(0, 0)) || t.Year() > 2200 {
		return p.Errorf("devops.start", "an RFC 3339 time from 1970 to 2200, such as 2016-01-01T00:00:00Z")
	}
	w.start = t.UnixNano()
	if w.batch, err = intIn(p, "devops.batch", 100, 1, 100_000); err != nil {
		return err
	}
	if w.ooo, err = floatIn(p, "devops.outoforder", 0, 0, 1); err != nil {
		return err
	}
	om, err := intIn(p, "devops.outoforder.intervals", 5, 1, 1000)
	if err != nil {
		return err
	}
	w.oooMax = int64(om)
	rc, err := p.IntMin("recordcount", int64(w.hosts)*360, 0)
	if err != nil {
		return err
	}
	w.loadCount = rc
	var sum float64
	for i, key := range devopsPropKeys {
		if w.proportions[i], err = floatIn(p, key, devopsPropDefaults[i], 0, math.MaxFloat64); err != nil {
			return err
		}
		sum += w.proportions[i]
	}
	if !(sum > 0) {
		return p.Errorf("devops.insertproportion", "at least one of %v to be > 0", devopsPropKeys)
	}
	return nil
}

func (w *Devops) readQueries(p *spec.Props) error {
	span, err := p.Duration("devops.query.range", time.Hour)
	if err != nil {
		return err
	}
	if int64(span) < w.interval || span > 1000*24*time.Hour {
		return p.Errorf("devops.query.range", "a duration from devops.interval (%v) to 1000 days", time.Duration(w.interval))
	}
	w.span = int64(span)
	if w.span/w.interval > 1<<20 {
		return p.Errorf("devops.query.range", "at most 2^20 × devops.interval (%v): a query reads every point of its range", time.Duration(w.interval))
	}
	if w.gbHosts, err = intIn(p, "devops.groupby.hosts", int64(min(8, w.hosts)), 1, int64(w.hosts)); err != nil {
		return err
	}
	fn := p.String("devops.groupby.function", "max")
	var ok bool
	if w.gbFn, ok = aggFunc(fn); !ok {
		return p.Errorf("devops.groupby.function", "one of %s", strings.Join(aggFuncs, ", "))
	}
	b, err := p.Duration("devops.groupby.bucket", time.Minute)
	if err != nil {
		return err
	}
	if int64(b) < w.interval || int64(b) > w.span {
		return p.Errorf("devops.groupby.bucket", "a duration from devops.interval (%v) to devops.query.range (%v)", time.Duration(w.interval), time.Duration(w.span))
	}
	w.bucket = int64(b)
	return nil
}

// derive sets where run-phase writes begin: after every interval any load
// client can reach (its share over its hosts, plus points held late).
func (w *Devops) derive() {
	var far int64
	for i := 0; i < w.threads; i++ {
		lo, hi := w.slice(i)
		q := split(w.loadCount, int64(w.threads), int64(i))
		n := int64(hi - lo)
		far = max(far, q/n+1+w.oooMax+2)
	}
	w.runOffset = far
	w.latest = make([]atomic.Int64, w.threads)
	w.handoff = make([]atomic.Pointer[dcursor], w.threads)
	w.fp.init(loadClients(w.loadCount, w.threads))
	for i := range w.latest {
		w.latest[i].Store(-1)
	}
}

// slice is the hosts [lo, hi) client id writes.
func (w *Devops) slice(id int) (lo, hi int) {
	per := w.hosts / w.threads
	id %= w.threads
	lo = per * id
	hi = lo + per
	if id == w.threads-1 {
		hi = w.hosts
	}
	return lo, hi
}

// owner is the client slice that writes host h.
func (w *Devops) owner(h int) int {
	per := w.hosts / w.threads
	return min(h/per, w.threads-1)
}

// Ops names the operations, in the order of the Devops constants.
func (w *Devops) Ops() []string { return devopsOps[:] }

// LoadCount is the points the load phase writes (recordcount; default
// devops.hosts × 360, an hour at the default interval).
func (w *Devops) LoadCount() int64 { return w.loadCount }

// Table is the table the workload writes and reads.
func (w *Devops) Table() string { return w.table }

// Batch is the points one INSERT operation writes.
func (w *Devops) Batch() int { return w.batch }

// Headline reports ingest of the measure phase in points (rows of the cpu
// measurement) and values (points × metrics) per second: INSERT operations
// are batches of devops.batch points.
func (w *Devops) Headline(elapsed time.Duration, ops []workload.OpCount) []workload.Metric {
	if elapsed <= 0 {
		return nil
	}
	for _, o := range ops {
		if o.Op != devopsOps[DevopsInsert] {
			continue
		}
		pts := float64(o.Count-o.Errors) * float64(w.batch) / elapsed.Seconds()
		return append([]workload.Metric{
			{Name: "points_per_sec", Value: pts, Unit: "points/s", Doc: fmt.Sprintf("points written per second: successful INSERTs × devops.batch (%d)", w.batch)},
			{Name: "values_per_sec", Value: pts * float64(len(w.metrics)), Unit: "values/s", Doc: fmt.Sprintf("metric values written per second: points × devops.metrics (%d)", len(w.metrics))},
		}, w.fp.metric(w.loadCount)...)
	}
	return w.fp.metric(w.loadCount)
}

// Choose builds the time-series workload the properties select: ok is
// false when they select none of them.
func Choose(p *spec.Props) (w workload.Workload, ok bool, err error) {
	switch {
	case Is(p):
		w, err := New(p)
		if err != nil {
			return nil, true, err
		}
		return w, true, nil
	case IsDevops(p):
		w, err := NewDevops(p)
		if err != nil {
			return nil, true, err
		}
		return w, true, nil
	}
	return nil, false, nil
}

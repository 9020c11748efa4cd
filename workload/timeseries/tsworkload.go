// Package timeseries holds dbrig's time-series workloads: YCSB's
// TimeSeriesWorkload (site.ycsb.workloads.TimeSeriesWorkload, with YCSB's
// properties and its tsworkloada and tsworkload_template files built in) and
// a devops ingest workload in the shape of TSBS and Xephon-B (hosts ×
// metrics × interval, batches, out-of-order arrival, last-point, range and
// group-by queries).
//
// Both run on every driver.DB, as YCSB does: a key-value store keeps each
// point as a record whose key is its series and time, flattened the way
// YCSB flattens a series for a delete (metric:tagk=tagv:…:YCSBTS=time, the
// time zero-padded so a series' keys sort by time). The record holds the
// point either in YCSB's fields (one per tag, the timestamp, the value) or,
// on the SQL drivers whose tables have fixed field columns, as one line of
// InfluxDB line protocol (property timeseries.layout). A range query is a
// scan from the first key; group-by and downsampling are computed by the
// client from what the scans return, as a key-value store's user would.
//
// The generators are deterministic: the same properties, seed and client
// number give the same points and queries.
package timeseries

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload"
)

// ClassName is YCSB's class name of the workload; workload= chooses it.
const ClassName = "site.ycsb.workloads.TimeSeriesWorkload"

// legacyClassName is the name YCSB's own tsworkloada still carries in some
// of its versions.
const legacyClassName = "com.yahoo.ycsb.workloads.TimeSeriesWorkload"

// Is tells whether the properties choose YCSB's TimeSeriesWorkload.
func Is(p *spec.Props) bool {
	w := strings.TrimSpace(p.String("workload", ""))
	return w == ClassName || w == legacyClassName
}

// YCSB operation indexes, in the order of Ops.
const (
	OpRead = iota
	OpUpdate
	OpInsert
	OpScan
	OpDelete
	numOps
)

var opNames = [numOps]string{"READ", "UPDATE", "INSERT", "SCAN", "DELETE"}

var proportionKeys = [numOps]string{"readproportion", "updateproportion", "insertproportion", "scanproportion", "deleteproportion"}

// proportionDefaults are YCSB's CoreWorkload defaults, which the
// TimeSeriesWorkload takes through CoreWorkload.createOperationGenerator.
var proportionDefaults = [numOps]float64{0.95, 0.05, 0, 0, 0}

// units are java.util.concurrent.TimeUnit's names (what timestampunits
// takes) and, per unit, the unit timestamps are written in and how many
// of those one unit is: YCSB writes MINUTES, HOURS and DAYS as seconds.
var units = []struct {
	name  string
	tick  time.Duration
	scale int64
}{
	{"SECONDS", time.Second, 1},
	{"MILLISECONDS", time.Millisecond, 1},
	{"MICROSECONDS", time.Microsecond, 1},
	{"NANOSECONDS", time.Nanosecond, 1},
	{"MINUTES", time.Second, 60},
	{"HOURS", time.Second, 3600},
	{"DAYS", time.Second, 86400},
}

// TSWorkload is YCSB's TimeSeriesWorkload. It is safe for concurrent use
// by its Clients.
type TSWorkload struct {
	table                     string
	layout                    string
	keys, tagKeyNames, tagVal [][]byte // metric names, tag keys, tag values (shared by all tags)
	tagKeys                   []string
	card                      []int   // cardinality per tag
	cum                       []int64 // YCSB's cumulativeCardinality: series per step of key, tag 0, …
	perKey, total             int64   // series per metric; all series

	tick                   time.Duration
	interval               int64 // timestampinterval in ticks
	start                  int64 // first timestamp, in ticks
	startSet               bool
	maxOffsets             int64
	runOffset              int64 // intervals after start where run-phase writes begin
	randomOrder            bool
	sparsity               float64
	delayed                float64
	delayedIntervals       int64
	valueType              string
	dataIntegrity          bool
	span                   int64 // querytimespan in ticks
	randomSpan             bool
	groupBy                []bool // per tag; nil: no group-by
	groupFn, downFn        string
	downInterval           int64 // in ticks
	tsKey, valueKey        string
	delim, pair            string
	requestDist            string
	hotData, hotOpn        float64
	maxScan                int64
	scanDist               string
	proportions            [numOps]float64
	threads                int
	recordCount, loadCount int64
	lineField              string
	fp                     footprint
}

var _ workload.Workload = (*TSWorkload)(nil)

// New reads YCSB's TimeSeriesWorkload properties from p. Every bad value is
// a *spec.PropError naming where it was set and what is allowed.
func New(p *spec.Props) (*TSWorkload, error) {
	p.Known("workload", "fieldlengthdistribution", "dotransactions")
	w := &TSWorkload{}
	for _, read := range []func(*spec.Props) error{w.readShape, w.readTime, w.readQueries, w.readMix} {
		if err := read(p); err != nil {
			return nil, err // later reads build on earlier ones
		}
	}
	w.derive()
	w.fp.init(loadClients(w.loadCount, w.threads))
	return w, nil
}

// readShape reads the series: metrics, tags, their cardinalities and names.
func (w *TSWorkload) readShape(p *spec.Props) error {
	var err error
	check := func(e error) {
		if err == nil && e != nil {
			err = e
		}
	}
	w.table = p.String("table", "usertable")
	if w.table == "" {
		check(p.Errorf("table", "a table name"))
	}
	var e error
	w.layout, e = p.Choice("timeseries.layout", layoutAuto, layoutFields, layoutLine)
	check(e)
	w.lineField = p.String("fieldnameprefix", "field") + "0"
	nKeys, e := intIn(p, "fieldcount", 10, 1, 1<<20)
	check(e)
	keyLen, e := intIn(p, "fieldlength", 100, 1, 1000)
	check(e)
	tags, e := intIn(p, "tagcount", 4, 1, 64)
	check(e)
	tkLen, e := intIn(p, "tagkeylength", 8, 1, 1000)
	check(e)
	tvLen, e := intIn(p, "tagvaluelength", 8, 1, 1000)
	check(e)
	threads, e := p.IntMin("threadcount", 1, 1)
	check(e)
	w.threads = int(threads)
	if err != nil {
		return err
	}
	if nKeys < w.threads {
		return p.Errorf("fieldcount", "an integer >= threadcount (%d): each client writes the series of its own metrics, as in YCSB", w.threads)
	}
	w.card, err = cardinalities(p, tags)
	if err != nil {
		return err
	}
	w.perKey = 1
	maxCard := 0
	for _, c := range w.card {
		if w.perKey > (1<<40)/int64(nKeys)/int64(c) { // checked before it can overflow
			return p.Errorf("tagcardinality", "values whose product × fieldcount (%d) is at most 2^40 series", nKeys)
		}
		w.perKey *= int64(c)
		maxCard = max(maxCard, c)
	}
	w.total = w.perKey * int64(nKeys)
	if int64(nKeys)*int64(keyLen)+int64(maxCard)*int64(tvLen) > 1<<26 {
		return p.Errorf("fieldcount", "fieldcount × fieldlength + the largest tagcardinality × tagvaluelength <= 2^26: the names are kept in memory")
	}
	w.keys = incNames(nKeys, keyLen)
	w.tagKeyNames = incNames(tags, tkLen)
	w.tagVal = incNames(maxCard, tvLen)
	w.tagKeys = make([]string, tags)
	for i, k := range w.tagKeyNames {
		w.tagKeys[i] = string(k)
	}
	shuffle, err := p.Bool("randomtimeseriesorder", true)
	if err != nil {
		return err
	}
	if shuffle {
		shuffled(w.keys, 1)
		shuffled(w.tagVal, 2)
	}
	w.dataIntegrity, err = p.Bool("dataintegrity", false)
	if err == nil && w.dataIntegrity && shuffle {
		return p.Errorf("randomtimeseriesorder", "false when dataintegrity=true (as YCSB)")
	}
	return err
}

// cardinalities reads tagcardinality: exactly tagcount integers >= 1.
// YCSB pads a short list with 1 and drops extra values silently; dbrig
// refuses both, since either is most likely a mistake.
func cardinalities(p *spec.Props, tags int) ([]int, error) {
	raw := p.String("tagcardinality", "1, 2, 4, 8")
	parts := strings.Split(raw, ",")
	want := fmt.Sprintf("%d comma-separated integers >= 1, one per tag (tagcount=%d)", tags, tags)
	if len(parts) != tags {
		if !p.Has("tagcardinality") {
			return nil, p.Errorf("tagcount", "%d, as many tags as tagcardinality has values (default %q), or tagcardinality set with %d values", len(parts), raw, tags)
		}
		return nil, p.Errorf("tagcardinality", "%s; it has %d", want, len(parts))
	}
	out := make([]int, tags)
	for i, s := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 1<<24 {
			return nil, p.Errorf("tagcardinality", "%s, each at most 16777216", want)
		}
		out[i] = n
	}
	return out, nil
}

// readTime reads units, interval, the start, ordering, sparsity and delays.
func (w *TSWorkload) readTime(p *spec.Props) error {
	v, _, _ := p.Lookup("timestampunits")
	unit := strings.ToUpper(strings.TrimSpace(v))
	if unit == "" {
		unit = "SECONDS"
	}
	scale := int64(0)
	var names []string
	for _, u := range units {
		names = append(names, u.name)
		if u.name == unit {
			w.tick, scale = u.tick, u.scale
		}
	}
	if scale == 0 {
		return p.Errorf("timestampunits", "a java.util.concurrent.TimeUnit: one of %s", strings.Join(names, ", "))
	}
	iv, err := intIn(p, "timestampinterval", 60, 1, 1<<40)
	if err != nil {
		return err
	}
	w.interval = int64(iv) * scale
	if w.randomOrder, err = p.Bool("randomwritetimestamporder", false); err != nil {
		return err
	}
	if w.sparsity, err = floatIn(p, "sparsity", 0, 0, 0.999999); err != nil {
		return err
	}
	// YCSB reads delayedseries and delayedintervals; its own tsworkloada and
	// template spell them delayedSeries and delayedIntervals, which YCSB
	// therefore ignores. dbrig honours either spelling.
	dsKey := alias(p, "delayedseries", "delayedSeries")
	if w.delayed, err = floatIn(p, dsKey, 0.10, 0, 1); err != nil {
		return err
	}
	diKey := alias(p, "delayedintervals", "delayedIntervals")
	di, err := intIn(p, diKey, 5, 0, 1<<20)
	if err != nil {
		return err
	}
	w.delayedIntervals = int64(di)
	if w.delayed > 0 && di < 1 {
		return p.Errorf(diKey, "an integer >= 1 when %s > 0 (the delay is the series number modulo it)", dsKey)
	}
	return w.readStart(p, scale)
}

// alias returns the key of the two spellings that is set (lower wins).
func alias(p *spec.Props, lower, camel string) string {
	p.Known(lower, camel)
	if !p.Has(lower) && p.Has(camel) {
		return camel
	}
	return lower
}

// readStart reads insertstart (a Unix time in timestampunits) and the
// record counts. Unset, the start is now, as in YCSB, rounded down to the
// interval so that a separate load and run agree within one interval.
func (w *TSWorkload) readStart(p *spec.Props, scale int64) error {
	rc, err := p.IntMin("recordcount", 0, 0)
	if err != nil {
		return err
	}
	w.recordCount = rc
	w.loadCount, err = p.IntMin("insertcount", rc, 0)
	if err != nil {
		return err
	}
	earliest := w.interval * w.delayedIntervals // delayed series write this far back
	if v, _, ok := p.Lookup("insertstart"); ok && strings.TrimSpace(v) != "" {
		s, err := p.IntMin("insertstart", 0, 0)
		if err != nil {
			return err
		}
		if s > math.MaxInt64/scale/4 {
			return p.Errorf("insertstart", "a Unix time in timestampunits")
		}
		w.start, w.startSet = s*scale, true
		if w.start < earliest {
			return p.Errorf("insertstart", "a time >= delayedintervals × timestampinterval (%d): delayed series write that far back", earliest/scale)
		}
	} else {
		now := int64(time.Now().UnixNano()) / int64(w.tick)
		w.start = now - now%w.interval
	}
	if w.dataIntegrity && !w.startSet {
		return p.Errorf("dataintegrity", "false unless insertstart is set to a Unix time (as YCSB)")
	}
	return nil
}

// readQueries reads the query span, group-by and downsampling.
func (w *TSWorkload) readQueries(p *spec.Props) error {
	scale := w.scale(p)
	span, err := intIn(p, "querytimespan", 0, 0, 1<<40)
	if err != nil {
		return err
	}
	w.span = int64(span) * scale
	if w.span > 0 && w.span < w.interval {
		return p.Errorf("querytimespan", "0 (a single timestamp) or at least timestampinterval (%d)", w.interval/scale)
	}
	if w.span/w.interval > 1<<20 {
		return p.Errorf("querytimespan", "at most 2^20 × timestampinterval: a query reads every interval of its span")
	}
	if w.randomSpan, err = p.Bool("queryrandomtimespan", false); err != nil {
		return err
	}
	if w.dataIntegrity && w.span > 0 {
		return p.Errorf("querytimespan", "0 when dataintegrity=true (as YCSB)")
	}
	w.tsKey = nonEmpty(p, "timestampkey", "YCSBTS")
	w.valueKey = nonEmpty(p, "valuekey", "YCSBV")
	w.pair = nonEmpty(p, "tagpairdelimiter", "=")
	w.delim = nonEmpty(p, "deletedelimiter", ":")
	p.Known("querytimespandelimiter", "groupbykey", "downsamplingkey")
	if err := w.readGroupBy(p); err != nil {
		return err
	}
	return w.readDownsampling(p, scale)
}

// scale is how many ticks one timestampunits unit is.
func (w *TSWorkload) scale(p *spec.Props) int64 {
	v, _, _ := p.Lookup("timestampunits")
	for _, u := range units {
		if strings.EqualFold(strings.TrimSpace(v), u.name) {
			return u.scale
		}
	}
	return 1
}

func nonEmpty(p *spec.Props, key, def string) string {
	if v := p.String(key, def); v != "" {
		return v
	}
	return def
}

func (w *TSWorkload) readGroupBy(p *spec.Props) error {
	fn := strings.TrimSpace(p.String("groupbyfunction", ""))
	if fn == "" {
		p.Known("groupbykeys")
		return nil
	}
	f, ok := aggFunc(fn)
	if !ok {
		return p.Errorf("groupbyfunction", "one of %s (or empty: no group-by)", strings.Join(aggFuncs, ", "))
	}
	w.groupFn = f
	raw := strings.TrimSpace(p.String("groupbykeys", ""))
	want := fmt.Sprintf("%d comma-separated 0s and 1s, one per tag (tagcount=%d): 1 groups by that tag", len(w.card), len(w.card))
	if raw == "" {
		return spec.Missing("groupbykeys", want+" (groupbyfunction is set)")
	}
	parts := strings.Split(raw, ",")
	if len(parts) != len(w.card) {
		return p.Errorf("groupbykeys", "%s; it has %d", want, len(parts))
	}
	w.groupBy = make([]bool, len(parts))
	combos := int64(1)
	for i, s := range parts {
		switch strings.TrimSpace(s) {
		case "0":
		case "1":
			w.groupBy[i] = true
			combos *= int64(w.card[i])
		default:
			return p.Errorf("groupbykeys", "%s", want)
		}
	}
	if combos > 4096 {
		return p.Errorf("groupbykeys", "tags whose cardinalities multiply to at most 4096: a key-value store reads each grouped series (it is %d)", combos)
	}
	if w.dataIntegrity {
		return p.Errorf("groupbyfunction", "empty when dataintegrity=true (as YCSB)")
	}
	return nil
}

func (w *TSWorkload) readDownsampling(p *spec.Props, scale int64) error {
	fn := strings.TrimSpace(p.String("downsamplingfunction", ""))
	if fn == "" {
		p.Known("downsamplinginterval")
		return nil
	}
	f, ok := aggFunc(fn)
	if !ok {
		return p.Errorf("downsamplingfunction", "one of %s (or empty: no downsampling)", strings.Join(aggFuncs, ", "))
	}
	w.downFn = f
	if v, _, ok := p.Lookup("downsamplinginterval"); !ok || strings.TrimSpace(v) == "" {
		return spec.Missing("downsamplinginterval", fmt.Sprintf("an integer > timestampinterval (%d) in timestampunits (downsamplingfunction is set)", w.interval/scale))
	}
	di, err := intIn(p, "downsamplinginterval", 0, 1, 1<<40)
	if err != nil {
		return err
	}
	w.downInterval = int64(di) * scale
	if w.downInterval <= w.interval {
		return p.Errorf("downsamplinginterval", "an integer > timestampinterval (%d), in timestampunits", w.interval/scale)
	}
	if w.dataIntegrity {
		return p.Errorf("downsamplingfunction", "empty when dataintegrity=true (as YCSB)")
	}
	return nil
}

// readMix reads the operation mix, value type and key choice.
func (w *TSWorkload) readMix(p *spec.Props) error {
	var sum float64
	for i, key := range proportionKeys {
		f, err := floatIn(p, key, proportionDefaults[i], 0, math.MaxFloat64)
		if err != nil {
			return err
		}
		w.proportions[i] = f
		sum += f
	}
	if rmw, err := p.Float("readmodifywriteproportion", 0); err != nil || rmw != 0 {
		if err != nil {
			return err
		}
		return p.Errorf("readmodifywriteproportion", "0: YCSB's TimeSeriesWorkload has no read-modify-write")
	}
	if !(sum > 0) {
		return p.Errorf("readproportion", "at least one of %v to be > 0", proportionKeys)
	}
	vt, err := p.Choice("valuetype", "floats", "integers", "mixednumbers", "mixed")
	if err != nil {
		return err
	}
	w.valueType = strings.TrimSuffix(vt, "numbers")
	if w.dataIntegrity && w.valueType != "integers" {
		return p.Errorf("valuetype", "integers when dataintegrity=true (as YCSB)")
	}
	if v, _, _ := p.Lookup("requestdistribution"); strings.TrimSpace(v) == "latest" {
		return p.Errorf("requestdistribution", "one of zipfian, uniform, sequential, hotspot (YCSB's TimeSeriesWorkload has no latest)")
	}
	if w.requestDist, err = p.Choice("requestdistribution", "zipfian", "uniform", "sequential", "hotspot"); err != nil {
		return err
	}
	if w.hotData, err = floatIn(p, "hotspotdatafraction", 0.2, 0, 1); err != nil {
		return err
	}
	if w.hotOpn, err = floatIn(p, "hotspotopnfraction", 0.8, 0, 1); err != nil {
		return err
	}
	ms, err := intIn(p, "maxscanlength", 1000, 1, 1<<20)
	if err != nil {
		return err
	}
	w.maxScan = int64(ms)
	w.scanDist, err = p.Choice("scanlengthdistribution", "uniform", "zipfian")
	if err != nil {
		return err
	}
	combos := int64(1)
	for i, g := range w.groupBy {
		if g {
			combos *= int64(w.card[i])
		}
	}
	if w.proportions[OpDelete] > 0 && combos*(w.span/w.interval+1) > 1<<16 {
		return p.Errorf("deleteproportion", "0 unless a delete's points (grouped series × querytimespan / timestampinterval) are at most 65536: a key-value store deletes them one by one")
	}
	return nil
}

// derive computes what the generators share: YCSB's cumulative
// cardinalities and maxOffsets, and where run-phase writes begin.
func (w *TSWorkload) derive() {
	n := len(w.card)
	w.cum = make([]int64, n+1)
	w.cum[n] = 1
	for i := n - 1; i >= 0; i-- {
		w.cum[i] = w.cum[i+1] * int64(w.card[i])
	}
	// w.cum[0] is the series per metric; YCSB's index 0 multiplies the key.
	rc := w.recordCount
	if rc == 0 {
		rc = math.MaxInt32 // YCSB: recordcount 0 is Integer.MAX_VALUE
	}
	w.maxOffsets = rc/w.total + 1
	if w.randomOrder {
		w.maxOffsets = min(w.maxOffsets, maxRandomIntervals)
	}
	// Run-phase writes start after every interval the load can reach: a
	// client writes its quota over its series, each write advancing its
	// cursor by at most the largest sparsity skip.
	adv := max(int64(1), w.sparseMax()-1)
	var far int64
	for i := 0; i < w.threads; i++ {
		lo, hi := w.slice(i)
		series := int64(hi-lo) * w.perKey
		q := split(w.loadCount, int64(w.threads), int64(i))
		// in floats: q × adv may not fit an int64 for absurd settings
		far = max(far, int64(min(math.Ceil(float64(q)*float64(adv)/float64(series)), 1<<50))+1)
	}
	w.runOffset = far
	if w.randomOrder { // shuffled blocks of maxOffsets intervals: begin on a fresh one
		w.runOffset = (far + w.maxOffsets - 1) / w.maxOffsets * w.maxOffsets
	}
}

// sparseMax is the bound of YCSB's per-write draw of series to skip.
func (w *TSWorkload) sparseMax() int64 {
	if w.sparsity <= 0 {
		return 1
	}
	return max(int64(1), int64(float64(w.perKey)*w.sparsity))
}

// slice is the metrics [lo, hi) client id writes, as YCSB's ThreadState:
// equal shares, the last client taking the rest.
func (w *TSWorkload) slice(id int) (lo, hi int) {
	n := len(w.keys)
	per := n / w.threads
	id %= w.threads
	lo = per * id
	hi = lo + per
	if id == w.threads-1 {
		hi = n
	}
	return lo, hi
}

// maxRandomIntervals bounds the intervals randomwritetimestamporder
// shuffles at once (YCSB's RandomDiscreteTimestampGenerator allows 2^24):
// each client keeps the permutation.
const maxRandomIntervals = 1 << 20

// split is the share of total that part i of n gets, the first ones one more.
func split(total, n, i int64) int64 {
	s := total / n
	if i < total%n {
		s++
	}
	return s
}

// Ops names the operations, in the order of the Op constants.
func (w *TSWorkload) Ops() []string { return opNames[:] }

// LoadCount is the points the load phase writes: insertcount (default
// recordcount).
func (w *TSWorkload) LoadCount() int64 { return w.loadCount }

// Table is the table the workload writes and reads.
func (w *TSWorkload) Table() string { return w.table }

// Series is how many series the properties make: fieldcount × the product
// of the tag cardinalities.
func (w *TSWorkload) Series() int64 { return w.total }

// Headline reports the ingest rate of the measure phase: points written
// (successful inserts) per second.
func (w *TSWorkload) Headline(elapsed time.Duration, ops []workload.OpCount) []workload.Metric {
	if elapsed <= 0 {
		return nil
	}
	for _, o := range ops {
		if o.Op == opNames[OpInsert] {
			return append([]workload.Metric{{Name: "points_per_sec", Value: float64(o.Count-o.Errors) / elapsed.Seconds(),
				Unit: "points/s", Doc: "points written per second by successful inserts"}}, w.fp.metric(w.loadCount)...)
		}
	}
	return w.fp.metric(w.loadCount)
}

func intIn(p *spec.Props, key string, def, lo, hi int64) (int, error) {
	n, err := p.Int(key, def)
	if err == nil && (n < lo || n > hi) {
		err = p.Errorf(key, "an integer from %d to %d", lo, hi)
	}
	return int(n), err
}

func floatIn(p *spec.Props, key string, def, lo, hi float64) (float64, error) {
	f, err := p.Float(key, def)
	if err == nil && !(f >= lo && f <= hi) {
		err = p.Errorf(key, "a number from %v to %v", lo, hi)
	}
	return f, err
}

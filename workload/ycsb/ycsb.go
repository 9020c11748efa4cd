// Package ycsb is YCSB's CoreWorkload: the same properties, defaults, key
// names and operation mix as site.ycsb.workloads.CoreWorkload, plus a DELETE
// operation (deleteproportion).
//
// Buffer contract with drivers: a Client reuses, from one call to the next,
// the driver.Record maps it passes to Insert, Update and InsertBatch, the byte
// slices in them, and the fields slices it passes to Read and Scan. A driver
// must copy what it keeps and must not retain or modify these after the call
// returns. Keys are fresh strings and may be kept. This keeps value generation
// free of per-operation allocations.
package ycsb

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload"
	"github.com/dbrig/dbrig/workload/gen"
)

// Operation indexes, in the order of Ops.
const (
	OpRead = iota
	OpUpdate
	OpInsert
	OpScan
	OpReadModifyWrite
	OpDelete
	numOps
)

// opNames are YCSB's measurement names.
var opNames = [numOps]string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE"}

// proportionKeys name the property of each operation's share, in Ops order.
var proportionKeys = [numOps]string{
	"readproportion", "updateproportion", "insertproportion", "scanproportion",
	"readmodifywriteproportion", "deleteproportion",
}

// proportionDefaults are YCSB's (0.95 reads, 0.05 updates).
var proportionDefaults = [numOps]float64{0.95, 0.05, 0, 0, 0, 0}

// Workload is YCSB's CoreWorkload. It is safe for concurrent use by its
// Clients; the key sequences are shared between them, as in YCSB.
type Workload struct {
	table      string
	fieldNames []string   // fieldnameprefix + 0 … fieldcount-1
	fieldOne   [][]string // fieldOne[i] = fieldNames[i:i+1], shared read-only
	readFields []string   // fields passed to Read when all are read: nil or all names

	fieldLenDist          string
	minFieldLen, fieldLen int64

	readAll, writeAll, dataIntegrity bool

	proportions [numOps]float64

	requestDist                           string
	zipfConst                             float64
	recordCount, insertStart, insertCount int64
	expectedNewKeys                       int64
	ordered                               bool
	zeroPadding                           int
	hotData, hotOpn                       float64
	expPercentile, expFrac                float64
	scanDist                              string
	minScan, maxScan                      int64

	keySeq     *gen.Counter    // load phase: next record to insert
	insertSeq  *gen.AckCounter // run phase inserts; reads see only acknowledged keys
	sequential *gen.Sequential // requestdistribution=sequential walks the keys once for all clients
}

var _ workload.Workload = (*Workload)(nil)

// New reads YCSB's CoreWorkload properties from p and validates them. Every
// bad value is a *spec.PropError naming where it was set.
func New(p *spec.Props) (*Workload, error) {
	// Accepted for compatibility with YCSB property files; dbrig does these
	// its own way (measurements, exporters, status) or not at all (retries).
	p.Known("workload", "measurementtype", "histogram.buckets", "hdrhistogram.percentiles",
		"exporter", "status.interval", "core_workload_insertion_retry_limit",
		"core_workload_insertion_retry_interval", "fieldlengthhistogram")

	w := &Workload{}
	c := &firstErr{}
	w.readFieldProps(p, c)
	w.readCounts(p, c)
	w.readWhichFields(p, c)
	chooses := w.readProportions(p, c)
	w.readDistributions(p, c)
	w.readScans(p, c)
	if c.err != nil {
		return nil, c.err
	}
	var err error
	w.keySeq = gen.NewCounter(w.insertStart)
	w.insertSeq = gen.NewAckCounter(w.recordCount)
	if w.requestDist == "sequential" && chooses {
		w.sequential, err = gen.NewSequential(w.insertStart, w.insertStart+w.insertCount-1)
		if err != nil {
			return nil, fmt.Errorf("ycsb: %w", err)
		}
	}
	// Build one client so that any generator that rejects the settings does so
	// here, with the properties at hand, rather than in NewClient.
	if _, err := w.newClient(0, 0); err != nil {
		var ge *genError
		if errors.As(err, &ge) {
			return nil, p.Errorf(ge.key, "a setting the generator accepts (%v)", ge.err)
		}
		return nil, fmt.Errorf("ycsb: %w", err)
	}
	return w, nil
}

// firstErr keeps the first error of a run of property reads, so the reads
// stay flat.
type firstErr struct{ err error }

func (c *firstErr) check(e error) {
	if c.err == nil && e != nil {
		c.err = e
	}
}

// readFieldProps reads the table, its fields and their lengths.
func (w *Workload) readFieldProps(p *spec.Props, c *firstErr) {
	var e error
	w.table = p.String("table", "usertable")
	if w.table == "" {
		c.check(p.Errorf("table", "a table name"))
	}
	n, e := p.IntMin("fieldcount", 10, 1)
	c.check(e)
	prefix := p.String("fieldnameprefix", "field")
	if e == nil && n > 1<<16 {
		c.check(p.Errorf("fieldcount", "an integer between 1 and 65536"))
	}
	if c.err == nil {
		w.fieldNames = make([]string, n)
		w.fieldOne = make([][]string, n)
		for i := range w.fieldNames {
			w.fieldNames[i] = prefix + strconv.Itoa(i)
			w.fieldOne[i] = w.fieldNames[i : i+1 : i+1]
		}
	}

	w.fieldLenDist, e = fieldLengthDistribution(p)
	c.check(e)
	w.fieldLen, e = p.IntMin("fieldlength", 100, 1)
	c.check(e)
	if e == nil && w.fieldLen > 1<<24 {
		c.check(p.Errorf("fieldlength", "an integer between 1 and 16777216"))
	}
	w.minFieldLen, e = p.IntMin("minfieldlength", 1, 0)
	c.check(e)
	if e == nil && w.minFieldLen > w.fieldLen {
		c.check(p.Errorf("minfieldlength", "an integer <= fieldlength (%d)", w.fieldLen))
	}
}

// readCounts reads how many records there are and which ones this load
// inserts, and the keys' zero padding.
func (w *Workload) readCounts(p *spec.Props, c *firstErr) {
	var e error
	w.recordCount, e = p.IntMin("recordcount", 0, 0)
	c.check(e)
	if e == nil && w.recordCount > MaxRecords {
		c.check(p.Errorf("recordcount", "at most %d records", int64(MaxRecords)))
	}
	w.insertStart, e = p.IntMin("insertstart", 0, 0)
	c.check(e)
	if e == nil && w.insertStart > MaxRecords {
		c.check(p.Errorf("insertstart", "at most %d", int64(MaxRecords)))
	}
	w.insertCount, e = p.IntMin("insertcount", max(w.recordCount-w.insertStart, 0), 0)
	c.check(e)
	// YCSB: "recordcount must be bigger than insertstart + insertcount".
	if c.err == nil && w.insertStart+w.insertCount > w.recordCount {
		key := "insertcount"
		if !p.Has(key) {
			key = "insertstart"
		}
		c.check(p.Errorf(key, "insertstart (%d) + insertcount (%d) <= recordcount (%d)", w.insertStart, w.insertCount, w.recordCount))
	}
	pad, e := p.IntMin("zeropadding", 1, 0)
	c.check(e)
	if e == nil && pad > 200 {
		c.check(p.Errorf("zeropadding", "an integer between 0 and 200"))
	}
	w.zeroPadding = int(pad)
}

// readWhichFields reads which fields reads and writes touch, and whether
// values are checked (dataintegrity).
func (w *Workload) readWhichFields(p *spec.Props, c *firstErr) {
	var e error
	w.readAll, e = p.Bool("readallfields", true)
	c.check(e)
	byName, e := p.Bool("readallfieldsbyname", false)
	c.check(e)
	w.writeAll, e = p.Bool("writeallfields", false)
	c.check(e)
	w.dataIntegrity, e = p.Bool("dataintegrity", false)
	c.check(e)
	if c.err == nil && w.dataIntegrity && w.fieldLenDist != "constant" {
		c.check(p.Errorf("dataintegrity", "false unless fieldlengthdistribution=constant (as YCSB: values are checked at their full length)"))
	}
	if w.dataIntegrity || byName {
		w.readFields = w.fieldNames
	}
}

// readProportions reads the operation mix; it tells whether operations
// other than insert are chosen (they need records).
func (w *Workload) readProportions(p *spec.Props, c *firstErr) (chooses bool) {
	var sum float64
	for i, key := range proportionKeys {
		f, e := p.Float(key, proportionDefaults[i])
		c.check(e)
		if e == nil && (!(f >= 0) || math.IsInf(f, 1)) {
			c.check(p.Errorf(key, "a number >= 0"))
		}
		w.proportions[i] = f
		sum += f
	}
	if c.err == nil && !(sum > 0) {
		c.check(p.Errorf("readproportion", "at least one of %v to be > 0", proportionKeys))
	}
	chooses = w.proportions[OpRead]+w.proportions[OpUpdate]+w.proportions[OpScan]+
		w.proportions[OpReadModifyWrite]+w.proportions[OpDelete] > 0
	if c.err == nil && chooses {
		// Reads, updates, scans, read-modify-writes and deletes need records.
		switch {
		case w.recordCount < 1:
			c.check(p.Errorf("recordcount", "an integer >= 1 when operations other than insert are used"))
		case w.insertCount < 1:
			c.check(p.Errorf("insertcount", "an integer >= 1 when operations other than insert are used"))
		}
	}
	return chooses
}

// readDistributions reads how keys are chosen and inserted.
func (w *Workload) readDistributions(p *spec.Props, c *firstErr) {
	var e error
	w.requestDist, e = p.Choice("requestdistribution", "uniform", "zipfian", "latest", "hotspot", "sequential", "exponential")
	c.check(e)
	// zipfianconstant skews the zipfian and latest request distributions;
	// YCSB's scan and field lengths keep its fixed 0.99.
	w.zipfConst, e = p.Float("zipfianconstant", gen.DefaultZipfianConstant)
	c.check(e)
	if e == nil && !(w.zipfConst > 0 && w.zipfConst < 1) {
		c.check(p.Errorf("zipfianconstant", "a number > 0 and < 1"))
	}
	if w.requestDist == "zipfian" {
		// YCSB widens the zipfian key space by the inserts it expects, so keys
		// inserted during the run can be chosen (keys not yet there are drawn
		// again). With operationcount=0 (a timed run) that is none, as in YCSB.
		ops, e := p.Int("operationcount", 0)
		c.check(e)
		w.expectedNewKeys = int64(float64(max(ops, 0)) * w.proportions[OpInsert] * 2)
	}
	order, e := p.Choice("insertorder", "hashed", "ordered")
	c.check(e)
	w.ordered = order == "ordered"
	w.hotData, e = fraction(p, "hotspotdatafraction", 0.2)
	c.check(e)
	w.hotOpn, e = fraction(p, "hotspotopnfraction", 0.8)
	c.check(e)
	w.expPercentile, e = p.Float("exponential.percentile", 95)
	c.check(e)
	if e == nil && !(w.expPercentile > 0 && w.expPercentile < 100) {
		c.check(p.Errorf("exponential.percentile", "a number > 0 and < 100"))
	}
	w.expFrac, e = p.Float("exponential.frac", 0.8571428571)
	c.check(e)
	if e == nil && (!(w.expFrac > 0) || math.IsInf(w.expFrac, 1)) {
		c.check(p.Errorf("exponential.frac", "a number > 0"))
	}
}

// readScans reads the scan lengths and their distribution.
func (w *Workload) readScans(p *spec.Props, c *firstErr) {
	var e error
	w.minScan, e = p.IntMin("minscanlength", 1, 1)
	c.check(e)
	w.maxScan, e = p.IntMin("maxscanlength", 1000, 1)
	c.check(e)
	if c.err == nil && w.maxScan < w.minScan {
		c.check(p.Errorf("maxscanlength", "an integer >= minscanlength (%d)", w.minScan))
	}
	w.scanDist, e = p.Choice("scanlengthdistribution", "uniform", "zipfian")
	c.check(e)
}

func fieldLengthDistribution(p *spec.Props) (string, error) {
	v, _, ok := p.Lookup("fieldlengthdistribution")
	if ok && v == "histogram" {
		return "", p.Errorf("fieldlengthdistribution", "constant, uniform or zipfian (histogram is not implemented by dbrig)")
	}
	return p.Choice("fieldlengthdistribution", "constant", "uniform", "zipfian")
}

func fraction(p *spec.Props, key string, def float64) (float64, error) {
	f, err := p.Float(key, def)
	if err == nil && !(f >= 0 && f <= 1) {
		err = p.Errorf(key, "a number between 0 and 1")
	}
	return f, err
}

// Ops names the operations, in the order of the Op constants.
func (w *Workload) Ops() []string { return opNames[:] }

// opMethods are the driver.DB methods each operation calls, in Ops order.
var opMethods = [numOps][]string{
	{driver.MethodRead}, {driver.MethodUpdate}, {driver.MethodInsert}, {driver.MethodScan},
	{driver.MethodRead, driver.MethodUpdate}, {driver.MethodDelete},
}

// Methods implements workload.MethodUser: the methods of the operations
// with a share above 0, each with its proportion property.
func (w *Workload) Methods() []workload.MethodUse {
	var out []workload.MethodUse
	for i, share := range w.proportions {
		if share <= 0 {
			continue
		}
		for _, m := range opMethods[i] {
			out = append(out, workload.MethodUse{Method: m, Prop: proportionKeys[i]})
		}
	}
	return out
}

// LoadCount is insertcount: the records [insertstart, insertstart+insertcount).
func (w *Workload) LoadCount() int64 { return w.insertCount }

// Table is the table the workload loads and works on (property table).
func (w *Workload) Table() string { return w.table }

// NewClient returns the state of one client; seed and id together seed its
// random choices.
func (w *Workload) NewClient(id int, seed int64) workload.Client {
	c, err := w.newClient(id, seed)
	if err != nil {
		// New built a client with the same settings successfully.
		panic(fmt.Sprintf("ycsb: NewClient after a successful New: %v", err))
	}
	return c
}

// Key returns the key of record number keynum, as YCSB's buildKeyName.
func (w *Workload) Key(keynum int64) string {
	var b [64]byte
	return string(w.appendKey(b[:0], keynum))
}

// appendKey appends "user" + keynum (FNV-hashed unless insertorder=ordered),
// left-padded with zeros to zeropadding digits.
func (w *Workload) appendKey(dst []byte, keynum int64) []byte {
	if !w.ordered {
		keynum = gen.FNVHash64(keynum)
	}
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], keynum, 10)
	dst = append(dst, "user"...)
	for i := len(d); i < w.zeroPadding; i++ {
		dst = append(dst, '0')
	}
	return append(dst, d...)
}

// MaxRecords bounds recordcount and insertstart: a quadrillion records is more
// than any store dbrig drives holds, and far from where key arithmetic
// (insertstart + insertcount, the generators' ranges) overflows.
const MaxRecords = 1 << 50

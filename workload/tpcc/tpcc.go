// Package tpcc is the TPC-C workload (TPC-C specification 5.11): the nine
// tables, a parallel loader, the five transactions with their mix, NURand
// and the C constants, user aborts, remote warehouses, and the consistency
// conditions 1–4, on any database whose driver has the driver.SQL capability
// (postgres, mysql, sqlite).
//
// Each transaction is one operation of the run: Ops names them NEW_ORDER,
// PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL and NEW_ORDER_ROLLBACK. The
// 1 % of New-Orders the specification rolls back on purpose (an unused item
// number) are recorded as NEW_ORDER_ROLLBACK without an error: they are the
// correct outcome of their input, not a failure, and they are not New-Order
// commits (tpmC does not count them).
//
// Retry policy: a transaction that fails with an errclass.Conflict error
// (serialization failure, deadlock, lock wait timeout) is retried at once
// with the same input, up to tpcc.retries times (default 3). Its response
// time includes the retries. Retries are counted per transaction type
// (Retries, the retries_* headline metrics). A transaction still failing
// after them is one error of class conflict.
package tpcc

import (
	"context"
	_ "embed"
	"fmt"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload"
)

// Name is the workload property's value that selects TPC-C.
const Name = "tpcc"

//go:embed tpcc.properties
var builtin []byte

// Builtin returns the built-in property file "tpcc" (also as a path whose
// last element is tpcc, like YCSB's workloads/workloada).
func Builtin(name string) ([]byte, bool) {
	if path.Base(name) != Name {
		return nil, false
	}
	return builtin, true
}

// Operation indexes, in the order of Ops.
const (
	OpNewOrder = iota
	OpPayment
	OpOrderStatus
	OpDelivery
	OpStockLevel
	OpNewOrderRollback
	numOps
)

var opNames = [numOps]string{"NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL", "NEW_ORDER_ROLLBACK"}

// mixTxns are the transactions the mix chooses among (a rollback is a
// New-Order's outcome, not a choice).
const mixTxns = 5

// Specification constants (clause 1.2, 4.3.3.1).
const (
	districtsPerWarehouse = 10
	fullItems             = 100_000
	fullCustomers         = 3_000 // per district; as many orders
)

// Scale is the size of the data set.
type Scale struct {
	Warehouses int
	Items      int // 100 000; fewer only with tpcc.testscale
	Customers  int // per district (and orders per district): 3 000; fewer only with tpcc.testscale
}

// NewOrders is the number of undelivered orders per district at load: the
// last 900 of 3 000.
func (s Scale) NewOrders() int { return s.Customers * 900 / fullCustomers }

// firstNew is the first undelivered order of a district at load.
func (s Scale) firstNew() int { return s.Customers - s.NewOrders() + 1 }

func (s Scale) String() string {
	return fmt.Sprintf("warehouses=%d items=%d customers/district=%d", s.Warehouses, s.Items, s.Customers)
}

// Workload is TPC-C; safe for concurrent use by its Clients.
type Workload struct {
	scale   Scale
	mix     [mixTxns]int // cumulative percentages
	mixText string
	spec    bool // keying and think times
	reuse   bool
	check   bool
	fk      bool
	retries int
	cLoad   int
	seed    int64

	chunks  []chunk
	next    atomic.Int64 // next load chunk
	done    atomic.Int64 // load chunks finished
	records int64

	retried [numOps]atomic.Int64
}

var (
	_ workload.Workload  = (*Workload)(nil)
	_ workload.Preparer  = (*Workload)(nil)
	_ workload.Checker   = (*Workload)(nil)
	_ workload.Headliner = (*Workload)(nil)
)

// cLoadDefault is C_LAST's load-time constant (any value in [0, 255]); it
// is stored with the data set so a reused one is run with a valid C_RUN.
const cLoadDefault = 157

// Props are the properties New reads, for `dbrig` to list and check.
func Props() []spec.Decl {
	return []spec.Decl{
		{Key: "tpcc.warehouses", Type: "int", Default: "1", Doc: "scale: warehouses (each 10 districts, 30 000 customers, 100 000 stock rows)"},
		{Key: "tpcc.mix", Type: "list", Default: "45,43,4,4,4", Doc: "percent of New-Order, Payment, Order-Status, Delivery, Stock-Level (sum 100)"},
		{Key: "tpcc.mode", Type: "string", Default: "fast", Doc: "fast (terminals back to back) or spec (10 terminals per warehouse, keying and think times)"},
		{Key: "tpcc.reuse", Type: "bool", Default: "false", Doc: "run on a loaded TPC-C database of the same scale instead of loading"},
		{Key: "tpcc.check", Type: "bool", Default: "false", Doc: "run the consistency checks 1-4 after the run (a failure fails the run)"},
		{Key: "tpcc.fk", Type: "bool", Default: "false", Doc: "add the specification's foreign keys after the load (postgres, mysql)"},
		{Key: "tpcc.retries", Type: "int", Default: "3", Doc: "retries of a transaction that failed with a conflict (serialization failure, deadlock)"},
		{Key: "tpcc.testscale", Type: "int", Default: "1", Doc: "TESTS ONLY: divide items and customers by this (1-100); not a TPC-C database"},
	}
}

// Is tells whether p selects TPC-C (workload=tpcc).
func Is(p *spec.Props) bool { return p.String("workload", "") == Name }

// New reads the tpcc.* properties. In spec mode it sets threadcount to 10
// terminals per warehouse unless the user set it (then it must agree).
func New(p *spec.Props) (*Workload, error) {
	p.Known("workload")
	w := &Workload{retries: 3, cLoad: cLoadDefault}
	wh, err := p.Int("tpcc.warehouses", 1)
	if err != nil {
		return nil, err
	}
	if wh < 1 || wh > 100_000 {
		return nil, p.Errorf("tpcc.warehouses", "a number of warehouses from 1 to 100000")
	}
	ts, err := p.Int("tpcc.testscale", 1)
	if err != nil {
		return nil, err
	}
	if ts < 1 || ts > 100 {
		return nil, p.Errorf("tpcc.testscale", "a divisor from 1 (a real TPC-C database) to 100")
	}
	w.scale = Scale{Warehouses: int(wh), Items: fullItems / int(ts), Customers: fullCustomers / int(ts)}
	if err := w.parseMix(p); err != nil {
		return nil, err
	}
	mode, err := p.Choice("tpcc.mode", "fast", "spec")
	if err != nil {
		return nil, err
	}
	w.spec = mode == "spec"
	if w.reuse, err = p.Bool("tpcc.reuse", false); err != nil {
		return nil, err
	}
	if w.check, err = p.Bool("tpcc.check", false); err != nil {
		return nil, err
	}
	if w.fk, err = p.Bool("tpcc.fk", false); err != nil {
		return nil, err
	}
	r, err := p.IntMin("tpcc.retries", 3, 0)
	if err != nil {
		return nil, err
	}
	w.retries = int(r)
	if w.spec {
		terminals := strconv.Itoa(10 * w.scale.Warehouses)
		if v, _, ok := p.Lookup("threadcount"); ok && strings.TrimSpace(v) != terminals {
			return nil, p.Errorf("threadcount", "%s clients: tpcc.mode=spec runs 10 terminals per warehouse (tpcc.warehouses=%d); leave --clients unset", terminals, w.scale.Warehouses)
		} else if !ok {
			p.Set("threadcount", terminals, spec.Source{Flag: "tpcc.mode=spec"})
		}
	}
	w.plan()
	return w, nil
}

func (w *Workload) plan() {
	w.chunks = plan(w.scale, w.seed)
	w.records = 0
	for _, c := range w.chunks {
		w.records += c.rows(w.scale)
	}
}

func (w *Workload) parseMix(p *spec.Props) error {
	text := p.String("tpcc.mix", "45,43,4,4,4")
	parts := strings.Split(text, ",")
	const want = "5 whole percentages for New-Order, Payment, Order-Status, Delivery, Stock-Level that sum to 100, e.g. 45,43,4,4,4"
	if len(parts) != mixTxns {
		return p.Errorf("tpcc.mix", want)
	}
	sum := 0
	for i, s := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return p.Errorf("tpcc.mix", want)
		}
		sum += n
		w.mix[i] = sum
	}
	if sum != 100 {
		return p.Errorf("tpcc.mix", "%s (they sum to %d)", want, sum)
	}
	w.mixText = text
	return nil
}

// SetSeed fixes the seed of the load's data (default: the data depend on
// nothing but the scale, so two loads are the same database).
func (w *Workload) SetSeed(seed int64) {
	w.seed = seed
	w.plan()
}

// Scale is the data set's size.
func (w *Workload) Scale() Scale { return w.scale }

// Ops implements workload.Workload.
func (w *Workload) Ops() []string { return opNames[:] }

// LoadCount implements workload.Workload: the rows of all nine tables.
func (w *Workload) LoadCount() int64 {
	if w.reuse {
		return 0
	}
	return w.records
}

// Retries returns how many conflict retries each transaction type needed.
func (w *Workload) Retries() map[string]int64 {
	out := map[string]int64{}
	for i := 0; i < mixTxns; i++ {
		out[opNames[i]] = w.retried[i].Load()
	}
	return out
}

// Headline implements workload.Headliner: tpmC (New-Order commits per
// minute), tpmTotal (committed or user-aborted transactions of every type
// per minute), and the conflict retries per transaction type.
func (w *Workload) Headline(elapsed time.Duration, ops []workload.OpCount) []workload.Metric {
	if elapsed <= 0 {
		return nil
	}
	min := elapsed.Minutes()
	var newOrders, total int64
	for _, o := range ops {
		ok := o.Count - o.Errors
		total += ok
		if o.Op == opNames[OpNewOrder] {
			newOrders = ok
		}
	}
	out := []workload.Metric{
		{Name: "tpmc", Value: float64(newOrders) / min, Unit: "txn/min", Doc: "New-Order transactions committed per minute"},
		{Name: "tpm_total", Value: float64(total) / min, Unit: "txn/min", Doc: "transactions of all types committed (or rolled back by the user, the 1 %) per minute"},
	}
	for i := 0; i < mixTxns; i++ {
		out = append(out, workload.Metric{Name: "retries_" + strings.ToLower(opNames[i]), Value: float64(w.retried[i].Load()),
			Unit: "retries", Doc: "conflict retries of " + opNames[i] + " (warmup and measure)"})
	}
	return out
}

// CheckEnabled implements workload.Checker (tpcc.check).
func (w *Workload) CheckEnabled() bool { return w.check }

// sqlOf returns db's SQL capability or the error that says why TPC-C
// cannot run on it.
func sqlOf(db driver.DB) (driver.SQL, error) {
	s, ok := db.(driver.SQL)
	if !ok {
		return nil, &workload.InputError{Err: &NoSQLError{DB: fmt.Sprintf("%T", db)}}
	}
	return s, nil
}

// NoSQLError is bad input: TPC-C on a driver without driver.SQL.
type NoSQLError struct{ DB string }

func (e *NoSQLError) Error() string {
	return fmt.Sprintf("workload tpcc needs a SQL database (a driver with the driver.SQL capability: postgres, mysql, sqlite); this driver (%s) has none", e.DB)
}

// Client is one TPC-C terminal: a home warehouse and district.
type Client struct {
	w        *Workload
	r        *rnd
	id       int
	wh, dist int
	next     int // the transaction Pause chose; -1: none
	lastTxn  int // for the think time after it
	now      func() time.Time
	buf      []any
}

// NewClient implements workload.Workload. Terminal i's home is warehouse
// i mod W + 1 and, in spec mode, district (i / W) mod 10 + 1.
func (w *Workload) NewClient(id int, seed int64) workload.Client {
	r := newRnd(seed, nurandC{})
	// C for C_ID and OL_I_ID may be any value (clause 2.1.6); C_LAST's
	// run-time value must keep its distance to the load-time one.
	r.c = nurandC{last: cRun(w.cLoad, rand.New(rand.NewPCG(uint64(w.seed), 1))), id: 259, item: 7911}
	c := &Client{w: w, r: r, id: id, next: -1, lastTxn: -1, now: time.Now}
	c.wh = id%w.scale.Warehouses + 1
	c.dist = (id/w.scale.Warehouses)%districtsPerWarehouse + 1
	return c
}

// pick chooses a transaction by the mix.
func (c *Client) pick() int {
	x := c.r.IntN(100)
	for i, cum := range c.w.mix {
		if x < cum {
			return i
		}
	}
	return OpNewOrder
}

// Keying times and mean think times (clause 5.2.5.7, 5.2.5.4).
var (
	keying = [mixTxns]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	think  = [mixTxns]time.Duration{12 * time.Second, 12 * time.Second, 10 * time.Second, 5 * time.Second, 5 * time.Second}
)

// Pause implements workload.Pacer in spec mode: the think time after the
// previous transaction (negative exponential, at most 10 × its mean) plus
// the keying time of the next, which it chooses now.
func (c *Client) Pause() time.Duration {
	if !c.w.spec {
		return 0
	}
	var d time.Duration
	if c.lastTxn >= 0 {
		mean := think[c.lastTxn]
		t := time.Duration(c.r.ExpFloat64() * float64(mean))
		d += min(t, 10*mean)
	}
	c.next = c.pick()
	return d + keying[c.next]
}

// Load implements workload.Client: it loads the next chunk of the data set
// (one table part of one warehouse) and returns its rows.
func (c *Client) Load(ctx context.Context, db driver.DB, _ int) (int, error) {
	return c.w.loadNext(ctx, db)
}

// Do implements workload.Client: one transaction, retried on conflicts.
func (c *Client) Do(ctx context.Context, db driver.DB) (int, error) {
	s, err := sqlOf(db)
	if err != nil {
		return OpNewOrder, err
	}
	t := c.next
	c.next = -1
	if t < 0 {
		t = c.pick()
	}
	c.lastTxn = t
	in := c.input(t)
	for attempt := 0; ; attempt++ {
		op, err := c.run(ctx, s, t, in)
		if err == nil || errclass.Of(err) != errclass.Conflict || attempt >= c.w.retries || ctx.Err() != nil {
			return op, err
		}
		c.w.retried[t].Add(1)
	}
}

// LoadOps is how many Load calls the load phase makes: one per chunk.
func (w *Workload) LoadOps() int64 {
	if w.reuse {
		return 0
	}
	return int64(len(w.chunks))
}

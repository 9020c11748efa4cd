package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/dbrig/dbrig/driver"
)

// A load is a list of chunks, each one table part of one warehouse (or of
// the items), taken by the loaders in turn, so loaders work on different
// warehouses in parallel. Each chunk's data come from its own random
// stream, so the database is the same whatever loader loads what.
type chunkKind int

const (
	chunkItems     chunkKind = iota // items [from, to]
	chunkWarehouse                  // the warehouse and its 10 districts
	chunkStock                      // stock [from, to] of a warehouse
	chunkCustomers                  // customers and history of a district
	chunkOrders                     // orders, order lines, new orders of a district
)

type chunk struct {
	kind     chunkKind
	wh, dist int
	from, to int
	olCnt    []int // orders: the order lines of each order
}

const itemsPerChunk = 10_000

// plan splits the data set into chunks, warehouse by warehouse. The
// number of order lines of each order is drawn here, from the seed, so the
// load knows its exact row count before it starts.
func plan(s Scale, seed int64) []chunk {
	out := chunks(s)
	for i := range out {
		if out[i].kind == chunkOrders {
			r := newRnd(seed*1_000_003+int64(i), nurandC{})
			out[i].olCnt = make([]int, s.Customers)
			for o := range out[i].olCnt {
				out[i].olCnt[o] = r.between(5, 15)
			}
		}
	}
	return out
}

func chunks(s Scale) []chunk {
	var out []chunk
	for from := 1; from <= s.Items; from += itemsPerChunk {
		out = append(out, chunk{kind: chunkItems, from: from, to: min(from+itemsPerChunk-1, s.Items)})
	}
	for w := 1; w <= s.Warehouses; w++ {
		out = append(out, chunk{kind: chunkWarehouse, wh: w})
		for from := 1; from <= s.Items; from += itemsPerChunk {
			out = append(out, chunk{kind: chunkStock, wh: w, from: from, to: min(from+itemsPerChunk-1, s.Items)})
		}
		for d := 1; d <= districtsPerWarehouse; d++ {
			out = append(out, chunk{kind: chunkCustomers, wh: w, dist: d}, chunk{kind: chunkOrders, wh: w, dist: d})
		}
	}
	return out
}

// rows is how many rows a chunk inserts.
func (c chunk) rows(s Scale) int64 {
	switch c.kind {
	case chunkItems, chunkStock:
		return int64(c.to - c.from + 1)
	case chunkWarehouse:
		return 1 + districtsPerWarehouse
	case chunkCustomers:
		return 2 * int64(s.Customers)
	default:
		n := int64(s.Customers) + int64(s.NewOrders())
		for _, k := range c.olCnt {
			n += int64(k)
		}
		return n
	}
}

// loadNext loads the next chunk; 0 rows and no error when all are taken.
// The loader that finishes the last chunk marks the database loaded (and
// adds the foreign keys, tpcc.fk).
func (w *Workload) loadNext(ctx context.Context, db driver.DB) (int, error) {
	s, err := sqlOf(db)
	if err != nil {
		return 0, err
	}
	i := w.next.Add(1) - 1
	if i >= int64(len(w.chunks)) {
		return 0, nil
	}
	c := w.chunks[i]
	n, err := w.loadChunk(ctx, s, c, newRnd(w.seed*1_000_003+i+1<<40, nurandC{last: w.cLoad, id: 259, item: 7911}))
	if err != nil {
		return n, fmt.Errorf("tpcc load %s: %w", c, err)
	}
	if w.done.Add(1) == int64(len(w.chunks)) {
		if w.fk {
			for _, q := range foreignKeys {
				if err := s.ExecSQL(ctx, q); err != nil {
					return n, fmt.Errorf("tpcc load: foreign keys: %w", err)
				}
			}
		}
		if err := s.ExecSQL(ctx, "UPDATE tpcc_meta SET loaded = 1"); err != nil {
			return n, fmt.Errorf("tpcc load: %w", err)
		}
	}
	return n, nil
}

func (c chunk) String() string {
	switch c.kind {
	case chunkItems:
		return fmt.Sprintf("items %d-%d", c.from, c.to)
	case chunkWarehouse:
		return fmt.Sprintf("warehouse %d", c.wh)
	case chunkStock:
		return fmt.Sprintf("stock %d-%d of warehouse %d", c.from, c.to, c.wh)
	case chunkCustomers:
		return fmt.Sprintf("customers of district %d/%d", c.wh, c.dist)
	default:
		return fmt.Sprintf("orders of district %d/%d", c.wh, c.dist)
	}
}

var (
	itemCols      = []string{"i_id", "i_im_id", "i_name", "i_price", "i_data"}
	warehouseCols = []string{"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"}
	districtCols  = []string{"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2", "d_city", "d_state", "d_zip", "d_tax", "d_ytd", "d_next_o_id"}
	stockCols     = []string{"s_i_id", "s_w_id", "s_quantity", "s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04", "s_dist_05",
		"s_dist_06", "s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10", "s_ytd", "s_order_cnt", "s_remote_cnt", "s_data"}
	customerCols = []string{"c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2", "c_city",
		"c_state", "c_zip", "c_phone", "c_since", "c_credit", "c_credit_lim", "c_discount", "c_balance", "c_ytd_payment",
		"c_payment_cnt", "c_delivery_cnt", "c_data"}
	historyCols   = []string{"h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data"}
	ordersCols    = []string{"o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"}
	orderLineCols = []string{"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d",
		"ol_quantity", "ol_amount", "ol_dist_info"}
	newOrderCols = []string{"no_o_id", "no_d_id", "no_w_id"}
)

// loadChunk inserts one chunk's rows (clause 4.3.3.1) and returns how many.
func (w *Workload) loadChunk(ctx context.Context, s driver.SQL, c chunk, r *rnd) (int, error) {
	sc := w.scale
	now := time.Now().UTC().Truncate(time.Microsecond)
	switch c.kind {
	case chunkItems:
		rows := make([][]any, 0, c.to-c.from+1)
		for i := c.from; i <= c.to; i++ {
			rows = append(rows, []any{i, r.between(1, 10_000), r.astring(14, 24), r.money(100, 10_000), r.data()})
		}
		return len(rows), s.BulkInsert(ctx, "item", itemCols, rows)
	case chunkWarehouse:
		wh := [][]any{{c.wh, r.astring(6, 10), r.astring(10, 20), r.astring(10, 20), r.astring(10, 20), r.astring(2, 2), r.zip(),
			float64(r.between(0, 2000)) / 10_000, 300_000.0}}
		if err := s.BulkInsert(ctx, "warehouse", warehouseCols, wh); err != nil {
			return 0, err
		}
		ds := make([][]any, 0, districtsPerWarehouse)
		for d := 1; d <= districtsPerWarehouse; d++ {
			ds = append(ds, []any{d, c.wh, r.astring(6, 10), r.astring(10, 20), r.astring(10, 20), r.astring(10, 20), r.astring(2, 2), r.zip(),
				float64(r.between(0, 2000)) / 10_000, 30_000.0, sc.Customers + 1})
		}
		return 1 + len(ds), s.BulkInsert(ctx, "district", districtCols, ds)
	case chunkStock:
		rows := make([][]any, 0, c.to-c.from+1)
		for i := c.from; i <= c.to; i++ {
			row := make([]any, 0, len(stockCols))
			row = append(row, i, c.wh, r.between(10, 100))
			for range districtsPerWarehouse {
				row = append(row, r.astring(24, 24))
			}
			rows = append(rows, append(row, 0, 0, 0, r.data()))
		}
		return len(rows), s.BulkInsert(ctx, "stock", stockCols, rows)
	case chunkCustomers:
		cs := make([][]any, 0, sc.Customers)
		hs := make([][]any, 0, sc.Customers)
		for id := 1; id <= sc.Customers; id++ {
			var last string
			if id <= 1000 {
				last = lastName(id - 1)
			} else {
				last = lastName(r.nurand(255, 0, 999))
			}
			credit := "GC"
			if r.IntN(10) == 0 {
				credit = "BC"
			}
			cs = append(cs, []any{id, c.dist, c.wh, r.astring(8, 16), "OE", last, r.astring(10, 20), r.astring(10, 20), r.astring(10, 20),
				r.astring(2, 2), r.zip(), r.nstring(16, 16), now, credit, 50_000.0, float64(r.between(0, 5000)) / 10_000,
				-10.0, 10.0, 1, 0, r.astring(300, 500)})
			hs = append(hs, []any{id, c.dist, c.wh, c.dist, c.wh, now, 10.0, r.astring(12, 24)})
		}
		if err := s.BulkInsert(ctx, "customer", customerCols, cs); err != nil {
			return 0, err
		}
		return len(cs) + len(hs), s.BulkInsert(ctx, "history", historyCols, hs)
	default:
		perm := r.Perm(sc.Customers)
		first := sc.firstNew()
		os := make([][]any, 0, sc.Customers)
		ols := make([][]any, 0, sc.Customers*10)
		nos := make([][]any, 0, sc.NewOrders())
		for o := 1; o <= sc.Customers; o++ {
			cnt := c.olCnt[o-1]
			var carrier, delivered any
			if o < first {
				carrier, delivered = r.between(1, 10), now
			} else {
				nos = append(nos, []any{o, c.dist, c.wh})
			}
			os = append(os, []any{o, c.dist, c.wh, perm[o-1] + 1, now, carrier, cnt, 1})
			for n := 1; n <= cnt; n++ {
				amount := 0.0
				if o >= first {
					amount = r.money(1, 999_999)
				}
				ols = append(ols, []any{o, c.dist, c.wh, n, r.between(1, sc.Items), c.wh, delivered, 5, amount, r.astring(24, 24)})
			}
		}
		for _, t := range []struct {
			name string
			cols []string
			rows [][]any
		}{{"orders", ordersCols, os}, {"order_line", orderLineCols, ols}, {"new_order", newOrderCols, nos}} {
			if err := s.BulkInsert(ctx, t.name, t.cols, t.rows); err != nil {
				return 0, err
			}
		}
		return len(os) + len(ols) + len(nos), nil
	}
}

package tpcc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/workload"
)

// TestTransactionEffects checks on a tiny database (testscale 100: 1 000
// items, 30 customers per district) on each SQL system what each
// transaction writes, and that the consistency checks see a corruption.
func TestTransactionEffects(t *testing.T) {
	for name, open := range testDBs() {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			ctx := context.Background()
			w := tiny(t, "tpcc.warehouses=2")
			load(t, db, w)
			s := db.(driver.SQL)
			if err := Check(ctx, db); err != nil {
				t.Fatalf("check after load: %v", err)
			}
			sc := w.Scale()
			if n := count(t, s, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = 3"); n != int64(sc.NewOrders()) {
				t.Fatalf("new orders of a district after load: %d, want %d", n, sc.NewOrders())
			}
			c := w.NewClient(0, 7).(*Client)

			// New-Order: the right order lines and stock updates.
			in := input{wh: 1, dist: 3, cust: 5, allLocal: 0, lines: []line{
				{item: 10, supply: 1, qty: 3}, {item: 20, supply: 2, qty: 7}, {item: 10, supply: 1, qty: 2}}}
			stockBefore := count(t, s, "SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = 10")
			remoteBefore := count(t, s, "SELECT s_remote_cnt FROM stock WHERE s_w_id = 2 AND s_i_id = 20")
			next := count(t, s, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3")
			if op, err := c.run(ctx, s, OpNewOrder, in); err != nil || op != OpNewOrder {
				t.Fatalf("new-order: op %d, %v", op, err)
			}
			if got := count(t, s, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3"); got != next+1 {
				t.Errorf("d_next_o_id %d, want %d", got, next+1)
			}
			if got := count(t, s, "SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = ?", next); got != 3 {
				t.Errorf("order lines of the new order: %d, want 3", got)
			}
			if got := count(t, s, "SELECT o_ol_cnt FROM orders WHERE o_w_id = 1 AND o_d_id = 3 AND o_id = ? AND o_c_id = 5", next); got != 3 {
				t.Errorf("o_ol_cnt %d, want 3", got)
			}
			if got := count(t, s, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = 3 AND no_o_id = ?", next); got != 1 {
				t.Errorf("new_order row of the new order: %d, want 1", got)
			}
			if got := count(t, s, "SELECT ol_supply_w_id * 100 + ol_quantity FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = ? AND ol_number = 2", next); got != 207 {
				t.Errorf("order line 2: supply*100+quantity %d, want 207", got)
			}
			want := stockBefore - 5
			if stockBefore-3 < 10 {
				want += 91
				if want-2 < 10 {
					want += 91
				}
			} else if stockBefore-5 < 10 {
				want += 91
			}
			if got := count(t, s, "SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = 10"); got != want {
				t.Errorf("stock of item 10 after orders of 3 and 2 from %d: %d, want %d", stockBefore, got, want)
			}
			if got := count(t, s, "SELECT s_ytd * 1000 + s_order_cnt FROM stock WHERE s_w_id = 1 AND s_i_id = 10"); got != 5002 {
				t.Errorf("item 10: s_ytd*1000+s_order_cnt %d, want 5002", got)
			}
			if got := count(t, s, "SELECT s_remote_cnt FROM stock WHERE s_w_id = 2 AND s_i_id = 20"); got != remoteBefore+1 {
				t.Errorf("remote count of item 20 in warehouse 2: %d, want %d", got, remoteBefore+1)
			}

			// A rolled-back New-Order leaves nothing.
			lines := count(t, s, "SELECT COUNT(*) FROM order_line")
			orders := count(t, s, "SELECT COUNT(*) FROM orders")
			stockSum := count(t, s, "SELECT SUM(s_quantity) FROM stock")
			bad := input{wh: 1, dist: 3, cust: 6, allLocal: 1, lines: []line{{item: 11, supply: 1, qty: 4}, {item: sc.Items + 1, supply: 1, qty: 1}}, rollbackItem: true}
			if op, err := c.run(ctx, s, OpNewOrder, bad); err != nil || op != OpNewOrderRollback {
				t.Fatalf("rolled-back new-order: op %s, %v; want NEW_ORDER_ROLLBACK without error", opNames[op], err)
			}
			if got := count(t, s, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3"); got != next+1 {
				t.Errorf("rolled back: d_next_o_id %d, want %d", got, next+1)
			}
			if count(t, s, "SELECT COUNT(*) FROM order_line") != lines || count(t, s, "SELECT COUNT(*) FROM orders") != orders ||
				count(t, s, "SELECT SUM(s_quantity) FROM stock") != stockSum {
				t.Error("a rolled-back New-Order left order lines, orders or stock changes")
			}

			// Payment: warehouse, district and customer YTD move together.
			wytd := count(t, s, "SELECT w_ytd * 100 FROM warehouse WHERE w_id = 1")
			pay := input{wh: 1, dist: 4, cw: 2, cd: 9, last: lastName(3), amount: 123.45}
			if _, err := c.run(ctx, s, OpPayment, pay); err != nil {
				t.Fatalf("payment: %v", err)
			}
			if got := count(t, s, "SELECT w_ytd * 100 FROM warehouse WHERE w_id = 1"); got != wytd+12345 {
				t.Errorf("w_ytd*100 %d, want %d", got, wytd+12345)
			}
			if got := count(t, s, "SELECT COUNT(*) FROM history WHERE h_w_id = 1 AND h_d_id = 4 AND h_c_w_id = 2 AND h_c_d_id = 9"); got != 1 {
				t.Errorf("history rows of the remote payment: %d, want 1", got)
			}
			if got := count(t, s, "SELECT c_payment_cnt FROM customer WHERE c_w_id = 2 AND c_d_id = 9 AND c_id = 4"); got != 2 {
				t.Errorf("payment count of customer %s (id 4): %d, want 2", lastName(3), got)
			}

			// Delivery delivers the oldest new order of every district.
			var oldest [districtsPerWarehouse]int64
			for d := range oldest {
				oldest[d] = count(t, s, "SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = 2 AND no_d_id = ?", d+1)
			}
			var got [districtsPerWarehouse]int
			err := s.InTx(ctx, driver.TxOptions{}, func(tx driver.Tx) error {
				var err error
				got, err = c.delivery(ctx, s.Dialect(), tx, input{wh: 2, carrier: 7})
				return err
			})
			if err != nil {
				t.Fatalf("delivery: %v", err)
			}
			for d := range oldest {
				if int64(got[d]) != oldest[d] {
					t.Errorf("district %d: delivered order %d, want the oldest %d", d+1, got[d], oldest[d])
				}
				if n := count(t, s, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 2 AND no_d_id = ? AND no_o_id = ?", d+1, oldest[d]); n != 0 {
					t.Errorf("district %d: order %d still undelivered", d+1, oldest[d])
				}
				if n := count(t, s, "SELECT o_carrier_id FROM orders WHERE o_w_id = 2 AND o_d_id = ? AND o_id = ?", d+1, oldest[d]); n != 7 {
					t.Errorf("district %d: carrier %d, want 7", d+1, n)
				}
				if n := count(t, s, "SELECT COUNT(*) FROM order_line WHERE ol_w_id = 2 AND ol_d_id = ? AND ol_o_id = ? AND ol_delivery_d IS NULL", d+1, oldest[d]); n != 0 {
					t.Errorf("district %d: %d order lines without a delivery date", d+1, n)
				}
			}
			for _, tx := range []int{OpOrderStatus, OpStockLevel} {
				if _, err := c.run(ctx, s, tx, c.input(tx)); err != nil {
					t.Errorf("%s: %v", opNames[tx], err)
				}
			}
			if err := Check(ctx, db); err != nil {
				t.Fatalf("check after the transactions: %v", err)
			}

			// A district YTD changed on purpose fails condition 1, by name.
			if err := s.ExecSQL(ctx, "UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 2 AND d_id = 5"); err != nil {
				t.Fatal(err)
			}
			err = Check(ctx, db)
			var ce *workload.CheckError
			if !errors.As(err, &ce) || len(ce.Problems) != 1 || !strings.Contains(ce.Problems[0], "condition 1") || !strings.Contains(ce.Problems[0], "warehouse 2") {
				t.Fatalf("check of a corrupted district YTD: %v; want condition 1 failing for warehouse 2", err)
			}
			t.Logf("corrupted: %v", err)
		})
	}
}

// TestShortRun runs every transaction type from several terminals for a
// second on each system; the consistency checks must pass afterwards, and
// nothing but conflicts may fail.
func TestShortRun(t *testing.T) {
	for name, open := range testDBs() {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			ctx := context.Background()
			w := tiny(t, "tpcc.warehouses=2", "tpcc.mix=35,33,10,12,10")
			load(t, db, w)
			sums, err := run.Run(ctx, db, w, run.Config{Clients: 6, Duration: 1500 * time.Millisecond, Seed: 3}, nil)
			if err != nil {
				t.Fatal(err)
			}
			sum, _ := measure.Measured(sums)
			for _, o := range sum.Ops {
				t.Logf("%-18s %5d ok, %d errors %v", o.Op, o.Count-o.Errors, o.Errors, o.Classes)
				if o.Op != opNames[OpNewOrderRollback] && o.Count-o.Errors == 0 {
					t.Errorf("%s: no transaction completed", o.Op)
				}
				if o.Errors > o.Classes["conflict"] {
					t.Errorf("%s: %d errors besides conflicts: %v", o.Op, o.Errors-o.Classes["conflict"], sum.Errors)
				}
			}
			t.Logf("retries %v", w.Retries())
			if err := Check(ctx, db); err != nil {
				t.Fatalf("check after a run: %v", err)
			}
			m := w.Headline(sum.End.Sub(sum.Start), opCounts(sum))
			if m[0].Name != "tpmc" || m[0].Value <= 0 || m[1].Value < m[0].Value {
				t.Errorf("headline %+v: want tpmc > 0 and tpm_total ≥ tpmc", m[:2])
			}
		})
	}
}

func opCounts(sum measure.Summary) []workload.OpCount {
	out := make([]workload.OpCount, len(sum.Ops))
	for i, o := range sum.Ops {
		out[i] = workload.OpCount{Op: o.Op, Count: o.Count, Errors: o.Errors}
	}
	return out
}

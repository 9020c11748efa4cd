package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/workload"
)

// Each consistency condition catches the inconsistency it is about, and
// only that one: a loaded database is changed by hand to break one
// condition (condition 2 in each of its halves), Check must name that
// condition and no other, and the change undone, Check passes again. A
// condition weakened so that it no longer sees its case fails here.
func TestEachConditionCatchesItsCase(t *testing.T) {
	for name, open := range testDBs() {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			ctx := context.Background()
			load(t, db, tiny(t))
			s := db.(driver.SQL)
			exec := func(q string) {
				t.Helper()
				if err := s.ExecSQL(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if err := Check(ctx, db); err != nil {
				t.Fatalf("check after load: %v", err)
			}
			maxNO := count(t, s, "SELECT MAX(no_o_id) FROM new_order WHERE no_w_id = 1 AND no_d_id = 2")
			minNO := count(t, s, "SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = 1 AND no_d_id = 3")
			for _, c := range []struct {
				n           int
				what        string
				break_, fix string
			}{
				{1, "W_YTD off by one", "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1", "UPDATE warehouse SET w_ytd = w_ytd - 1 WHERE w_id = 1"},
				{2, "D_NEXT_O_ID ahead of the orders", "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 1",
					"UPDATE district SET d_next_o_id = d_next_o_id - 1 WHERE d_w_id = 1 AND d_id = 1"},
				{2, "the newest NEW-ORDER row gone", fmt.Sprintf("DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 2 AND no_o_id = %d", maxNO),
					fmt.Sprintf("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (%d, 2, 1)", maxNO)},
				{3, "a NEW-ORDER row in the middle gone", fmt.Sprintf("DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 3 AND no_o_id = %d", minNO+1),
					fmt.Sprintf("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (%d, 3, 1)", minNO+1)},
				{4, "O_OL_CNT off by one", "UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 4 AND o_id = 1",
					"UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 4 AND o_id = 1"},
			} {
				exec(c.break_)
				err := Check(ctx, db)
				var ce *workload.CheckError
				if !errors.As(err, &ce) || len(ce.Problems) == 0 {
					t.Errorf("%s: check = %v, want condition %d to fail", c.what, err, c.n)
				} else {
					for _, p := range ce.Problems {
						if !strings.HasPrefix(p, fmt.Sprintf("condition %d ", c.n)) {
							t.Errorf("%s: %q, want only condition %d to fail", c.what, p, c.n)
						}
					}
				}
				exec(c.fix)
				if err := Check(ctx, db); err != nil {
					t.Fatalf("%s undone: %v", c.what, err)
				}
			}
		})
	}
}

// tpmC counts the New-Order transactions committed (errors and the
// user-rolled-back New-Orders excluded) per minute; tpm_total counts every
// committed transaction and the rollbacks.
func TestHeadlineCountsNewOrdersOnly(t *testing.T) {
	w := tiny(t)
	ops := []workload.OpCount{
		{Op: opNames[OpNewOrder], Count: 450, Errors: 30},
		{Op: opNames[OpPayment], Count: 430, Errors: 10},
		{Op: opNames[OpOrderStatus], Count: 40},
		{Op: opNames[OpDelivery], Count: 40, Errors: 2},
		{Op: opNames[OpStockLevel], Count: 40},
		{Op: opNames[OpNewOrderRollback], Count: 5},
	}
	m := w.Headline(2*time.Minute, ops)
	got := map[string]float64{}
	for _, x := range m {
		got[x.Name] = x.Value
	}
	if got["tpmc"] != (450-30)/2.0 {
		t.Errorf("tpmc %g, want %g: committed New-Orders per minute", got["tpmc"], (450-30)/2.0)
	}
	if want := (420 + 420 + 40 + 38 + 40 + 5) / 2.0; got["tpm_total"] != want {
		t.Errorf("tpm_total %g, want %g", got["tpm_total"], want)
	}
}

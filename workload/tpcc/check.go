package tpcc

import (
	"context"
	"fmt"
	"strconv"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/workload"
)

// A consistency condition of clause 3.3.2: a query returning one row per
// violation, and how to say it.
type condition struct {
	n     int
	what  string
	query string
	say   func(a, b, c, d float64) string
}

// conditions are clause 3.3.2.1–3.3.2.4. Money is compared with half a cent
// of tolerance (SQLite keeps DECIMAL as floating point). Condition 2 packs
// two order ids into one column with a decimal factor: an integer one
// overflowed PostgreSQL's integer on the first violation it had to report.
var conditions = []condition{
	{1, "W_YTD = sum(D_YTD)",
		`SELECT w_id, w_ytd, (SELECT SUM(d_ytd) FROM district WHERE d_w_id = w_id), 0 FROM warehouse
		 WHERE ABS(w_ytd - (SELECT SUM(d_ytd) FROM district WHERE d_w_id = w_id)) > 0.005 ORDER BY w_id`,
		func(w, ytd, sum, _ float64) string {
			return fmt.Sprintf("warehouse %.0f: W_YTD %.2f != sum of its districts' D_YTD %.2f", w, ytd, sum)
		}},
	{2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
		`SELECT d_w_id, d_id, d_next_o_id - 1,
		   COALESCE((SELECT MAX(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id), 0) * 1000000000.0 +
		   COALESCE((SELECT MAX(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id), 0)
		 FROM district
		 WHERE d_next_o_id - 1 <> COALESCE((SELECT MAX(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id), 0)
		    OR (EXISTS (SELECT 1 FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id)
		        AND d_next_o_id - 1 <> (SELECT MAX(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id))
		 ORDER BY d_w_id, d_id`,
		func(w, d, next, maxes float64) string {
			mo, mno := int64(maxes)/1_000_000_000, int64(maxes)%1_000_000_000
			return fmt.Sprintf("district %.0f/%.0f: D_NEXT_O_ID - 1 = %.0f, max(O_ID) = %d, max(NO_O_ID) = %d", w, d, next, mo, mno)
		}},
	{3, "max(NO_O_ID) - min(NO_O_ID) + 1 = count of NEW-ORDER rows",
		`SELECT no_w_id, no_d_id, MAX(no_o_id) - MIN(no_o_id) + 1, COUNT(*) FROM new_order
		 GROUP BY no_w_id, no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*) ORDER BY no_w_id, no_d_id`,
		func(w, d, span, n float64) string {
			return fmt.Sprintf("district %.0f/%.0f: new orders span %.0f order ids but %.0f rows", w, d, span, n)
		}},
	{4, "sum(O_OL_CNT) = count of ORDER-LINE rows",
		`SELECT o_w_id, o_d_id, SUM(o_ol_cnt),
		   (SELECT COUNT(*) FROM order_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id) FROM orders
		 GROUP BY o_w_id, o_d_id
		 HAVING SUM(o_ol_cnt) <> (SELECT COUNT(*) FROM order_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id)
		 ORDER BY o_w_id, o_d_id`,
		func(w, d, sum, n float64) string {
			return fmt.Sprintf("district %.0f/%.0f: sum(O_OL_CNT) = %.0f but %.0f order lines", w, d, sum, n)
		}},
}

// num scans any number a database returns (integer, float, DECIMAL as
// text), through database/sql's and pgx's sql.Scanner support.
type num float64

func (n *num) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*n = 0
	case int64:
		*n = num(x)
	case int32:
		*n = num(x)
	case float64:
		*n = num(x)
	case []byte:
		return n.Scan(string(x))
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return fmt.Errorf("not a number: %q", x)
		}
		*n = num(f)
	default:
		return fmt.Errorf("not a number: %T", v)
	}
	return nil
}

// maxProblems bounds the problems reported per condition.
const maxProblems = 5

// Check implements workload.Checker: consistency conditions 1–4. It
// returns a *workload.CheckError listing each violation.
func (w *Workload) Check(ctx context.Context, db driver.DB) error {
	return Check(ctx, db)
}

// Check verifies consistency conditions 1–4 of the TPC-C specification on
// the TPC-C database db holds.
func Check(ctx context.Context, db driver.DB) error {
	s, err := sqlOf(db)
	if err != nil {
		return err
	}
	if _, found, err := readMeta(ctx, s); err != nil {
		return err
	} else if !found {
		return fmt.Errorf("tpcc check: the database holds no TPC-C schema (no tpcc_meta row): load one with dbrig load -P tpcc")
	}
	var problems []string
	for _, c := range conditions {
		err := s.InTx(ctx, driver.TxOptions{ReadOnly: true}, func(tx driver.Tx) error {
			rows, err := tx.Query(ctx, c.query)
			if err != nil {
				return err
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var a, b, x, y num
				if err := rows.Scan(&a, &b, &x, &y); err != nil {
					return err
				}
				if n++; n <= maxProblems {
					problems = append(problems, fmt.Sprintf("condition %d (%s): %s", c.n, c.what, c.say(float64(a), float64(b), float64(x), float64(y))))
				}
			}
			if n > maxProblems {
				problems = append(problems, fmt.Sprintf("condition %d: and %d more", c.n, n-maxProblems))
			}
			return rows.Err()
		})
		if err != nil {
			return fmt.Errorf("tpcc check: condition %d: %w", c.n, err)
		}
	}
	if len(problems) > 0 {
		return &workload.CheckError{Problems: problems}
	}
	return nil
}

package tpcc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dbrig/dbrig/driver"
)

// errUserAbort rolls back the 1 % of New-Orders with an unused item number.
var errUserAbort = errors.New("tpcc: New-Order rolled back: item number not found (the specification's 1 % user abort)")

// line is one order line of a New-Order's input.
type line struct {
	item, supply, qty int
}

// input is a transaction's input, drawn before its first attempt so a
// retry repeats the same transaction.
type input struct {
	wh, dist     int
	cust         int    // 0: by last name
	last         string // by last name
	cw, cd       int    // Payment: the customer's warehouse and district
	amount       float64
	lines        []line
	allLocal     int
	carrier      int
	threshold    int
	rollbackItem bool
}

// input draws the input of transaction t (clause 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1).
func (c *Client) input(t int) input {
	r, s := c.r, c.w.scale
	in := input{wh: c.wh, dist: r.between(1, districtsPerWarehouse)}
	if c.w.spec {
		in.dist = c.dist
	}
	byName := func() {
		if r.IntN(100) < 60 {
			in.last = r.runLastName(s.Customers)
		} else {
			in.cust = r.nurand(1023, 1, s.Customers)
		}
	}
	switch t {
	case OpNewOrder:
		in.cust = r.nurand(1023, 1, s.Customers)
		n := r.between(5, 15)
		in.rollbackItem = r.IntN(100) == 0
		in.allLocal = 1
		in.lines = make([]line, n)
		for i := range in.lines {
			l := line{item: r.nurand(8191, 1, s.Items), supply: in.wh, qty: r.between(1, 10)}
			if s.Warehouses > 1 && r.IntN(100) == 0 {
				l.supply = c.otherWarehouse()
				in.allLocal = 0
			}
			in.lines[i] = l
		}
		if in.rollbackItem {
			in.lines[n-1].item = s.Items + 1 // unused
		}
	case OpPayment:
		in.cw, in.cd = in.wh, in.dist
		if s.Warehouses > 1 && r.IntN(100) < 15 {
			in.cw, in.cd = c.otherWarehouse(), r.between(1, districtsPerWarehouse)
		}
		byName()
		in.amount = r.money(100, 500_000)
	case OpOrderStatus:
		byName()
	case OpDelivery:
		in.carrier = r.between(1, 10)
	case OpStockLevel:
		in.dist = c.dist
		in.threshold = r.between(10, 20)
	}
	return in
}

func (c *Client) otherWarehouse() int {
	o := c.r.between(1, c.w.scale.Warehouses-1)
	if o >= c.wh {
		o++
	}
	return o
}

// run performs one attempt of transaction t and returns the op to record.
func (c *Client) run(ctx context.Context, s driver.SQL, t int, in input) (int, error) {
	switch t {
	case OpNewOrder:
		err := s.InTx(ctx, driver.TxOptions{}, func(tx driver.Tx) error { return c.newOrder(ctx, s.Dialect(), tx, in) })
		if errors.Is(err, errUserAbort) {
			return OpNewOrderRollback, nil
		}
		return OpNewOrder, err
	case OpPayment:
		return t, s.InTx(ctx, driver.TxOptions{}, func(tx driver.Tx) error { return c.payment(ctx, s.Dialect(), tx, in) })
	case OpOrderStatus:
		return t, s.InTx(ctx, driver.TxOptions{ReadOnly: true}, func(tx driver.Tx) error { return c.orderStatus(ctx, tx, in) })
	case OpDelivery:
		return t, s.InTx(ctx, driver.TxOptions{}, func(tx driver.Tx) error {
			_, err := c.delivery(ctx, s.Dialect(), tx, in)
			return err
		})
	default:
		return OpStockLevel, s.InTx(ctx, driver.TxOptions{ReadOnly: true}, func(tx driver.Tx) error { return c.stockLevel(ctx, tx, in) })
	}
}

// placeholders is "?, ?, …" n times.
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// newOrder is clause 2.4.2, with the statements in an order that keeps the
// hot rows locked briefly (the effects are the specification's): items and
// stock first, stock rows locked in item order (one supply warehouse after
// the other) so two New-Orders cannot deadlock, then the district, the
// order, the new order and the order lines. An unused item (the 1 % user
// abort) is found before anything was written.
func (c *Client) newOrder(ctx context.Context, d driver.SQLDialect, tx driver.Tx, in input) error {
	var discount, wTax, dTax float64
	var last, credit string
	if err := tx.QueryRow(ctx, "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?",
		in.wh, in.dist, in.cust).Scan(&discount, &last, &credit, &wTax); err != nil {
		return fmt.Errorf("new-order: customer %d/%d/%d: %w", in.wh, in.dist, in.cust, err)
	}
	// Items, all in one query.
	type item struct {
		price      float64
		name, data string
	}
	ids := distinctItems(in.lines)
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := tx.Query(ctx, "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN ("+placeholders(len(ids))+")", args...)
	if err != nil {
		return fmt.Errorf("new-order: items: %w", err)
	}
	items := make(map[int]item, len(ids))
	for rows.Next() {
		var id int
		var it item
		if err := rows.Scan(&id, &it.price, &it.name, &it.data); err != nil {
			rows.Close()
			return fmt.Errorf("new-order: items: %w", err)
		}
		items[id] = it
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("new-order: items: %w", err)
	}
	if len(items) != len(ids) {
		return errUserAbort
	}

	// Stock, per supply warehouse, locked in item order.
	type stockKey struct{ w, i int }
	type stockRow struct {
		qty        int
		data, dist string
	}
	stock := map[stockKey]*stockRow{}
	distCol := fmt.Sprintf("s_dist_%02d", in.dist)
	for _, w := range supplyWarehouses(in.lines) {
		var ids []any
		seen := map[int]bool{}
		for _, l := range in.lines {
			if l.supply == w && !seen[l.item] {
				seen[l.item] = true
				ids = append(ids, l.item)
			}
		}
		sort.Slice(ids, func(a, b int) bool { return ids[a].(int) < ids[b].(int) })
		q := "SELECT s_i_id, s_quantity, s_data, " + distCol + " FROM stock WHERE s_w_id = ? AND s_i_id IN (" + placeholders(len(ids)) + ") ORDER BY s_i_id" + d.ForUpdate
		rows, err := tx.Query(ctx, q, append([]any{w}, ids...)...)
		if err != nil {
			return fmt.Errorf("new-order: stock: %w", err)
		}
		for rows.Next() {
			var id int
			st := &stockRow{}
			if err := rows.Scan(&id, &st.qty, &st.data, &st.dist); err != nil {
				rows.Close()
				return fmt.Errorf("new-order: stock: %w", err)
			}
			stock[stockKey{w, id}] = st
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("new-order: stock: %w", err)
		}
	}

	type olRow struct {
		amount float64
		dist   string
	}
	ol := make([]olRow, len(in.lines))
	for n, l := range in.lines {
		st, ok := stock[stockKey{l.supply, l.item}]
		if !ok {
			return fmt.Errorf("new-order: no stock row for item %d in warehouse %d", l.item, l.supply)
		}
		q := st.qty - l.qty
		if st.qty-l.qty < 10 {
			q += 91
		}
		remote := 0
		if l.supply != in.wh {
			remote = 1
		}
		if _, err := tx.Exec(ctx, "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_w_id = ? AND s_i_id = ?",
			q, l.qty, remote, l.supply, l.item); err != nil {
			return fmt.Errorf("new-order: %w", err)
		}
		st.qty = q // a second line of the same item sees this one's
		ol[n] = olRow{amount: float64(l.qty) * items[l.item].price, dist: st.dist}
	}

	// The district (a hot row: 10 per warehouse) is locked last, so it is
	// held for the few statements that need its next order id.
	var oid int64
	if err := tx.QueryRow(ctx, "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ?"+d.ForUpdate,
		in.wh, in.dist).Scan(&oid, &dTax); err != nil {
		return fmt.Errorf("new-order: district %d/%d: %w", in.wh, in.dist, err)
	}
	if _, err := tx.Exec(ctx, "UPDATE district SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?", oid+1, in.wh, in.dist); err != nil {
		return fmt.Errorf("new-order: %w", err)
	}
	now := c.now()
	if _, err := tx.Exec(ctx, "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, ?, ?)",
		oid, in.dist, in.wh, in.cust, now, len(in.lines), in.allLocal); err != nil {
		return fmt.Errorf("new-order: %w", err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)", oid, in.dist, in.wh); err != nil {
		return fmt.Errorf("new-order: %w", err)
	}
	olArgs := make([]any, 0, len(in.lines)*9)
	for n, l := range in.lines {
		olArgs = append(olArgs, oid, in.dist, in.wh, n+1, l.item, l.supply, l.qty, ol[n].amount, ol[n].dist)
	}
	// The total (clause 2.4.2.2) is computed as the terminal would show it.
	_ = (1 - discount) * (1 + wTax + dTax)
	q := "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?), ", len(in.lines)), ", ")
	if _, err := tx.Exec(ctx, q, olArgs...); err != nil {
		return fmt.Errorf("new-order: order lines: %w", err)
	}
	return nil
}

func distinctItems(lines []line) []int {
	seen := map[int]bool{}
	var out []int
	for _, l := range lines {
		if !seen[l.item] {
			seen[l.item] = true
			out = append(out, l.item)
		}
	}
	sort.Ints(out)
	return out
}

func supplyWarehouses(lines []line) []int {
	seen := map[int]bool{}
	var out []int
	for _, l := range lines {
		if !seen[l.supply] {
			seen[l.supply] = true
			out = append(out, l.supply)
		}
	}
	sort.Ints(out)
	return out
}

// customerByName returns the customer in the middle (n/2 rounded up) of
// those with the last name, sorted by first name (clause 2.5.2.2).
func customerByName(ctx context.Context, tx driver.Tx, w, d int, last string) (int, error) {
	rows, err := tx.Query(ctx, "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first", w, d, last)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			return 0, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("no customer named %s in district %d/%d: %w", last, w, d, driver.ErrNoRows)
	}
	return ids[(len(ids)+1)/2-1], nil
}

// payment is clause 2.5.2; the warehouse row is written last (see below).
func (c *Client) payment(ctx context.Context, d driver.SQLDialect, tx driver.Tx, in input) error {
	var wName, dName string
	var street1, street2, city, state, zip string
	if _, err := tx.Exec(ctx, "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?", in.amount, in.wh, in.dist); err != nil {
		return fmt.Errorf("payment: %w", err)
	}
	if err := tx.QueryRow(ctx, "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?", in.wh, in.dist).
		Scan(&dName, &street1, &street2, &city, &state, &zip); err != nil {
		return fmt.Errorf("payment: district %d/%d: %w", in.wh, in.dist, err)
	}
	cid := in.cust
	if cid == 0 {
		var err error
		if cid, err = customerByName(ctx, tx, in.cw, in.cd, in.last); err != nil {
			return fmt.Errorf("payment: %w", err)
		}
	}
	var first, middle, last, credit, data string
	var limit, discount, balance float64
	if err := tx.QueryRow(ctx, "SELECT c_first, c_middle, c_last, c_credit, c_credit_lim, c_discount, c_balance FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"+d.ForUpdate,
		in.cw, in.cd, cid).Scan(&first, &middle, &last, &credit, &limit, &discount, &balance); err != nil {
		return fmt.Errorf("payment: customer %d/%d/%d: %w", in.cw, in.cd, cid, err)
	}
	if credit == "BC" { // bad credit: its 500-character C_DATA is rewritten
		if err := tx.QueryRow(ctx, "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?", in.cw, in.cd, cid).Scan(&data); err != nil {
			return fmt.Errorf("payment: customer %d/%d/%d: %w", in.cw, in.cd, cid, err)
		}
		data = fmt.Sprintf("%d %d %d %d %d %.2f|%s", cid, in.cd, in.cw, in.dist, in.wh, in.amount, data)
		if len(data) > 500 {
			data = data[:500]
		}
		if _, err := tx.Exec(ctx, "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
			in.amount, in.amount, data, in.cw, in.cd, cid); err != nil {
			return fmt.Errorf("payment: %w", err)
		}
	} else if _, err := tx.Exec(ctx, "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
		in.amount, in.amount, in.cw, in.cd, cid); err != nil {
		return fmt.Errorf("payment: %w", err)
	}
	// The warehouse (the hottest row: every Payment of the warehouse
	// writes it) is locked last, held for three statements.
	if _, err := tx.Exec(ctx, "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?", in.amount, in.wh); err != nil {
		return fmt.Errorf("payment: %w", err)
	}
	if err := tx.QueryRow(ctx, "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?", in.wh).
		Scan(&wName, &street1, &street2, &city, &state, &zip); err != nil {
		return fmt.Errorf("payment: warehouse %d: %w", in.wh, err)
	}
	hData := wName + "    " + dName
	if _, err := tx.Exec(ctx, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		cid, in.cd, in.cw, in.dist, in.wh, c.now(), in.amount, hData); err != nil {
		return fmt.Errorf("payment: %w", err)
	}
	return nil
}

// orderStatus is clause 2.6.2.
func (c *Client) orderStatus(ctx context.Context, tx driver.Tx, in input) error {
	cid := in.cust
	if cid == 0 {
		var err error
		if cid, err = customerByName(ctx, tx, in.wh, in.dist, in.last); err != nil {
			return fmt.Errorf("order-status: %w", err)
		}
	}
	var first, middle, last string
	var balance float64
	if err := tx.QueryRow(ctx, "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
		in.wh, in.dist, cid).Scan(&balance, &first, &middle, &last); err != nil {
		return fmt.Errorf("order-status: customer %d/%d/%d: %w", in.wh, in.dist, cid, err)
	}
	var oid int
	var carrier, entry any
	if err := tx.QueryRow(ctx, "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1",
		in.wh, in.dist, cid).Scan(&oid, &carrier, &entry); err != nil {
		return fmt.Errorf("order-status: last order of customer %d/%d/%d: %w", in.wh, in.dist, cid, err)
	}
	rows, err := tx.Query(ctx, "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
		in.wh, in.dist, oid)
	if err != nil {
		return fmt.Errorf("order-status: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var item, supply, qty int
		var amount float64
		var delivered any
		if err := rows.Scan(&item, &supply, &qty, &amount, &delivered); err != nil {
			return fmt.Errorf("order-status: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("order-status: %w", err)
	}
	return nil
}

// delivery is clause 2.7.4: the oldest undelivered order of each of the
// warehouse's 10 districts, in one transaction. A district without one is
// skipped. It returns the orders it delivered, by district (0: none).
// The oldest new order of each district is found and locked one district
// at a time; the writes and reads that follow cover all the districts at
// once (one statement each, as go-tpc does), then each customer is credited.
func (c *Client) delivery(ctx context.Context, d driver.SQLDialect, tx driver.Tx, in input) ([districtsPerWarehouse]int, error) {
	var delivered [districtsPerWarehouse]int
	now := c.now()
	var dists []int
	for dist := 1; dist <= districtsPerWarehouse; dist++ {
		var oid int
		err := tx.QueryRow(ctx, "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1"+d.ForUpdate, in.wh, dist).Scan(&oid)
		if errors.Is(err, driver.ErrNoRows) {
			continue // none, or delivered by a concurrent Delivery meanwhile
		}
		if err != nil {
			return delivered, fmt.Errorf("delivery: %w", err)
		}
		delivered[dist-1] = oid
		dists = append(dists, dist)
	}
	if len(dists) == 0 {
		return delivered, nil
	}
	// (x_d_id = ? AND x_o_id = ?) OR …, with its arguments after the warehouse.
	which := func(dcol, ocol string, lead ...any) (string, []any) {
		var b strings.Builder
		args := append([]any(nil), lead...)
		b.WriteString("(")
		for i, dist := range dists {
			if i > 0 {
				b.WriteString(" OR ")
			}
			b.WriteString("(" + dcol + " = ? AND " + ocol + " = ?)")
			args = append(args, dist, delivered[dist-1])
		}
		b.WriteString(")")
		return b.String(), args
	}
	cond, args := which("no_d_id", "no_o_id", in.wh)
	n, err := tx.Exec(ctx, "DELETE FROM new_order WHERE no_w_id = ? AND "+cond, args...)
	if err != nil {
		return delivered, fmt.Errorf("delivery: %w", err)
	}
	if n != int64(len(dists)) {
		return delivered, fmt.Errorf("delivery: deleted %d of the %d new orders it locked", n, len(dists))
	}
	// Write before reading: under MySQL's REPEATABLE READ a plain read sees
	// the transaction's snapshot, which may predate the orders the locking
	// reads above found; the rows it wrote itself it sees.
	cond, args = which("o_d_id", "o_id", in.carrier, in.wh)
	if _, err := tx.Exec(ctx, "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND "+cond, args...); err != nil {
		return delivered, fmt.Errorf("delivery: %w", err)
	}
	cond, args = which("ol_d_id", "ol_o_id", now, in.wh)
	if _, err := tx.Exec(ctx, "UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND "+cond, args...); err != nil {
		return delivered, fmt.Errorf("delivery: %w", err)
	}
	var cust, total [districtsPerWarehouse + 1]float64
	cond, args = which("o_d_id", "o_id", in.wh)
	if err := scanPairs(ctx, tx, "SELECT o_d_id, o_c_id FROM orders WHERE o_w_id = ? AND "+cond, args, &cust); err != nil {
		return delivered, fmt.Errorf("delivery: orders: %w", err)
	}
	cond, args = which("ol_d_id", "ol_o_id", in.wh)
	if err := scanPairs(ctx, tx, "SELECT ol_d_id, SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND "+cond+" GROUP BY ol_d_id", args, &total); err != nil {
		return delivered, fmt.Errorf("delivery: order lines: %w", err)
	}
	for _, dist := range dists {
		if cust[dist] == 0 {
			return delivered, fmt.Errorf("delivery: order %d/%d/%d: %w", in.wh, dist, delivered[dist-1], driver.ErrNoRows)
		}
		if _, err := tx.Exec(ctx, "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
			total[dist], in.wh, dist, int(cust[dist])); err != nil {
			return delivered, fmt.Errorf("delivery: %w", err)
		}
	}
	return delivered, nil
}

// scanPairs reads rows of (district, value) into out[district].
func scanPairs(ctx context.Context, tx driver.Tx, q string, args []any, out *[districtsPerWarehouse + 1]float64) error {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var dist int
		var v num
		if err := rows.Scan(&dist, &v); err != nil {
			return err
		}
		if dist < 1 || dist > districtsPerWarehouse {
			return fmt.Errorf("district %d out of range", dist)
		}
		out[dist] = float64(v)
	}
	return rows.Err()
}

// stockLevel is clause 2.8.2: distinct items of the district's last 20
// orders whose stock is below the threshold.
func (c *Client) stockLevel(ctx context.Context, tx driver.Tx, in input) error {
	var next int
	if err := tx.QueryRow(ctx, "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?", in.wh, in.dist).Scan(&next); err != nil {
		return fmt.Errorf("stock-level: district %d/%d: %w", in.wh, in.dist, err)
	}
	var low int
	if err := tx.QueryRow(ctx, "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?",
		in.wh, in.dist, next, next-20, in.wh, in.threshold).Scan(&low); err != nil {
		return fmt.Errorf("stock-level: %w", err)
	}
	return nil
}

var _ = time.Now

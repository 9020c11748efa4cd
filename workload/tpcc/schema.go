package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload"
)

// Tables lists the nine tables of TPC-C and dbrig's scale record, in the
// order they are created (dropped in reverse).
var Tables = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock", "tpcc_meta"}

// ddl is the schema with the specification's primary keys (clause 1.3) and
// the two secondary indexes the transactions need (customer by last name,
// orders by customer). ts is the dialect's timestamp type.
func ddl(d driver.SQLDialect) []string {
	ts := "TIMESTAMP"
	if d.Name == "mysql" {
		ts = "DATETIME(6)" // MySQL's TIMESTAMP has time zone and auto-update rules
	}
	o := d.TableOptions
	return []string{
		`CREATE TABLE warehouse (w_id INTEGER NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20), w_city VARCHAR(20),
			w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4, 4), w_ytd DECIMAL(12, 2), PRIMARY KEY (w_id))` + o,
		`CREATE TABLE district (d_id INTEGER NOT NULL, d_w_id INTEGER NOT NULL, d_name VARCHAR(10), d_street_1 VARCHAR(20), d_street_2 VARCHAR(20),
			d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4, 4), d_ytd DECIMAL(12, 2), d_next_o_id INTEGER,
			PRIMARY KEY (d_w_id, d_id))` + o,
		`CREATE TABLE customer (c_id INTEGER NOT NULL, c_d_id INTEGER NOT NULL, c_w_id INTEGER NOT NULL, c_first VARCHAR(16), c_middle CHAR(2),
			c_last VARCHAR(16), c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9),
			c_phone CHAR(16), c_since ` + ts + `, c_credit CHAR(2), c_credit_lim DECIMAL(12, 2), c_discount DECIMAL(4, 4),
			c_balance DECIMAL(12, 2), c_ytd_payment DECIMAL(12, 2), c_payment_cnt INTEGER, c_delivery_cnt INTEGER, c_data VARCHAR(500),
			PRIMARY KEY (c_w_id, c_d_id, c_id))` + o,
		`CREATE INDEX customer_name ON customer (c_w_id, c_d_id, c_last, c_first)`,
		`CREATE TABLE history (h_c_id INTEGER, h_c_d_id INTEGER, h_c_w_id INTEGER, h_d_id INTEGER, h_w_id INTEGER, h_date ` + ts + `,
			h_amount DECIMAL(6, 2), h_data VARCHAR(24))` + o,
		`CREATE TABLE new_order (no_o_id INTEGER NOT NULL, no_d_id INTEGER NOT NULL, no_w_id INTEGER NOT NULL,
			PRIMARY KEY (no_w_id, no_d_id, no_o_id))` + o,
		`CREATE TABLE orders (o_id INTEGER NOT NULL, o_d_id INTEGER NOT NULL, o_w_id INTEGER NOT NULL, o_c_id INTEGER, o_entry_d ` + ts + `,
			o_carrier_id INTEGER, o_ol_cnt INTEGER, o_all_local INTEGER, PRIMARY KEY (o_w_id, o_d_id, o_id))` + o,
		`CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)`,
		`CREATE TABLE order_line (ol_o_id INTEGER NOT NULL, ol_d_id INTEGER NOT NULL, ol_w_id INTEGER NOT NULL, ol_number INTEGER NOT NULL,
			ol_i_id INTEGER, ol_supply_w_id INTEGER, ol_delivery_d ` + ts + `, ol_quantity INTEGER, ol_amount DECIMAL(6, 2), ol_dist_info CHAR(24),
			PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))` + o,
		`CREATE TABLE item (i_id INTEGER NOT NULL, i_im_id INTEGER, i_name VARCHAR(24), i_price DECIMAL(5, 2), i_data VARCHAR(50),
			PRIMARY KEY (i_id))` + o,
		`CREATE TABLE stock (s_i_id INTEGER NOT NULL, s_w_id INTEGER NOT NULL, s_quantity INTEGER,
			s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24),
			s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24),
			s_ytd INTEGER, s_order_cnt INTEGER, s_remote_cnt INTEGER, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id))` + o,
		`CREATE TABLE tpcc_meta (warehouses INTEGER NOT NULL, items INTEGER NOT NULL, customers INTEGER NOT NULL, c_load INTEGER NOT NULL,
			loaded INTEGER NOT NULL)` + o,
	}
}

// foreignKeys are the specification's foreign keys (clause 1.3), added after
// the load (tpcc.fk): checked row by row during a load they would slow it.
var foreignKeys = []string{
	"ALTER TABLE district ADD CONSTRAINT fk_district_warehouse FOREIGN KEY (d_w_id) REFERENCES warehouse (w_id)",
	"ALTER TABLE customer ADD CONSTRAINT fk_customer_district FOREIGN KEY (c_w_id, c_d_id) REFERENCES district (d_w_id, d_id)",
	"ALTER TABLE history ADD CONSTRAINT fk_history_customer FOREIGN KEY (h_c_w_id, h_c_d_id, h_c_id) REFERENCES customer (c_w_id, c_d_id, c_id)",
	"ALTER TABLE history ADD CONSTRAINT fk_history_district FOREIGN KEY (h_w_id, h_d_id) REFERENCES district (d_w_id, d_id)",
	"ALTER TABLE new_order ADD CONSTRAINT fk_new_order_orders FOREIGN KEY (no_w_id, no_d_id, no_o_id) REFERENCES orders (o_w_id, o_d_id, o_id)",
	"ALTER TABLE orders ADD CONSTRAINT fk_orders_customer FOREIGN KEY (o_w_id, o_d_id, o_c_id) REFERENCES customer (c_w_id, c_d_id, c_id)",
	"ALTER TABLE order_line ADD CONSTRAINT fk_order_line_orders FOREIGN KEY (ol_w_id, ol_d_id, ol_o_id) REFERENCES orders (o_w_id, o_d_id, o_id)",
	"ALTER TABLE order_line ADD CONSTRAINT fk_order_line_stock FOREIGN KEY (ol_supply_w_id, ol_i_id) REFERENCES stock (s_w_id, s_i_id)",
	"ALTER TABLE stock ADD CONSTRAINT fk_stock_warehouse FOREIGN KEY (s_w_id) REFERENCES warehouse (w_id)",
	"ALTER TABLE stock ADD CONSTRAINT fk_stock_item FOREIGN KEY (s_i_id) REFERENCES item (i_id)",
}

// meta is the scale record of a loaded database.
type meta struct {
	scale  Scale
	cLoad  int
	loaded bool
}

// readMeta returns the scale record; ok is false when there is no TPC-C
// schema (no tpcc_meta table, or an empty one).
func readMeta(ctx context.Context, s driver.SQL) (m meta, ok bool, err error) {
	err = s.InTx(ctx, driver.TxOptions{ReadOnly: true}, func(tx driver.Tx) error {
		var loaded int
		err := tx.QueryRow(ctx, "SELECT warehouses, items, customers, c_load, loaded FROM tpcc_meta").
			Scan(&m.scale.Warehouses, &m.scale.Items, &m.scale.Customers, &m.cLoad, &loaded)
		m.loaded = loaded == 1
		return err
	})
	switch {
	case err == nil:
		return m, true, nil
	case errors.Is(err, driver.ErrNoRows), missingTable(err):
		return meta{}, false, nil
	}
	return meta{}, false, fmt.Errorf("tpcc: read the scale of the database: %w", err)
}

// missingTable tells whether err says a table does not exist.
func missingTable(err error) bool {
	if errclass.Of(err) != errclass.Other {
		return false
	}
	m := strings.ToLower(err.Error())
	return strings.Contains(m, "does not exist") || strings.Contains(m, "doesn't exist") || strings.Contains(m, "no such table")
}

// Drop removes every TPC-C table (and its data).
func Drop(ctx context.Context, db driver.DB) error {
	s, err := sqlOf(db)
	if err != nil {
		return err
	}
	// Referencing tables first (tpcc.fk).
	for _, t := range []string{"tpcc_meta", "history", "new_order", "order_line", "orders", "customer", "district", "stock", "item", "warehouse"} {
		if err := s.ExecSQL(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("tpcc: drop %s: %w", t, err)
		}
	}
	return nil
}

// Prepare implements workload.Preparer. On a database without a TPC-C
// schema it creates one for a load. On one that has it: with recreate it
// drops and recreates it; with tpcc.reuse and the same scale it keeps it
// (loaded = true); otherwise it says what to do.
func (w *Workload) Prepare(ctx context.Context, db driver.DB, recreate bool) (loaded bool, err error) {
	s, err := sqlOf(db)
	if err != nil {
		return false, err
	}
	if w.fk && s.Dialect().Name == "sqlite" {
		return false, &spec.PropError{Key: "tpcc.fk", Value: "true", Want: "false on sqlite (it cannot add foreign keys to loaded tables)"}
	}
	m, found, err := readMeta(ctx, s)
	if err != nil {
		return false, err
	}
	if found && !recreate {
		switch {
		case m.scale != w.scale:
			return false, &workload.InputError{Err: &ScaleError{Want: w.scale, Have: m.scale}}
		case !m.loaded:
			return false, &workload.InputError{Err: fmt.Errorf("tpcc: the database holds a TPC-C schema whose load did not finish: %w", &ReuseError{Partial: true})}
		case !w.reuse:
			return false, &workload.InputError{Err: &ReuseError{Have: m.scale}}
		case !validCRun(m.cLoad, cRun(m.cLoad, rand.New(rand.NewPCG(uint64(w.seed), 1)))):
			return false, fmt.Errorf("tpcc: the database was loaded with C_LAST constant %d, which dbrig cannot run against", m.cLoad)
		}
		w.cLoad = m.cLoad
		return true, nil
	}
	w.reuse = false // nothing (or nothing wanted) to reuse: load
	if err := Drop(ctx, db); err != nil {
		return false, err
	}
	for _, q := range ddl(s.Dialect()) {
		if err := s.ExecSQL(ctx, q); err != nil {
			return false, fmt.Errorf("tpcc: create schema: %w", err)
		}
	}
	if err := s.ExecSQL(ctx, "INSERT INTO tpcc_meta (warehouses, items, customers, c_load, loaded) VALUES (?, ?, ?, ?, 0)",
		w.scale.Warehouses, w.scale.Items, w.scale.Customers, w.cLoad); err != nil {
		return false, fmt.Errorf("tpcc: create schema: %w", err)
	}
	w.next.Store(0)
	w.done.Store(0)
	return false, nil
}

// ScaleError is a TPC-C database of another scale than asked for.
type ScaleError struct{ Want, Have Scale }

func (e *ScaleError) Error() string {
	return fmt.Sprintf("property tpcc.warehouses: the database holds a TPC-C schema of another scale (%s) than asked for (%s): set tpcc.warehouses=%d (and tpcc.testscale to match) to run on it with tpcc.reuse=true, or use --recreate to drop it and load %d warehouses",
		e.Have, e.Want, e.Have.Warehouses, e.Want.Warehouses)
}

// ReuseError is a loaded TPC-C database that the run would load again.
type ReuseError struct {
	Have    Scale
	Partial bool
}

func (e *ReuseError) Error() string {
	if e.Partial {
		return "use --recreate to drop it and load again"
	}
	return fmt.Sprintf("property tpcc.reuse: the database already holds a TPC-C database (%s): set tpcc.reuse=true to run on it, or use --recreate to drop it and load again", e.Have)
}

package tpcc

import (
	"context"
	"errors"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// TestForeignKeys: with tpcc.fk the load ends with the specification's
// foreign keys in place (an orphan order line is refused); SQLite refuses
// the property before anything is created.
func TestForeignKeys(t *testing.T) {
	for name, open := range map[string]func(*testing.T) driver.DB{"postgres": pgDB, "mysql": mysqlDB} {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			w := tiny(t, "tpcc.fk=true")
			load(t, db, w)
			s := db.(driver.SQL)
			err := s.ExecSQL(context.Background(), "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES (99999, 1, 1, 1, 1, 1, 1, 1, 'x')")
			if err == nil {
				t.Error("an order line of a missing order was accepted: no foreign keys")
			}
			if err := Check(context.Background(), db); err != nil {
				t.Error(err)
			}
			if err := Drop(context.Background(), db); err != nil {
				t.Errorf("drop with foreign keys: %v", err)
			}
		})
	}
	_, err := tiny(t, "tpcc.fk=true").Prepare(context.Background(), sqliteDB(t), false)
	var pe *spec.PropError
	if !errors.As(err, &pe) || pe.Key != "tpcc.fk" {
		t.Errorf("tpcc.fk on sqlite: %v, want a property error", err)
	}
}

// Package sqltxtest checks a driver.SQL on its real database: commit,
// rollback, no rows, bulk insert and (where the database locks rows) a
// deadlock classed as errclass.Conflict.
package sqltxtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
)

// Run checks db with a table of its own named table (dropped before and
// after); poolSize is how many connections its pool holds (1 for an
// embedded engine that serializes its writers anyway).
func Run(t *testing.T, db driver.SQL, table string, poolSize int) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	drop := func() { _ = db.ExecSQL(context.Background(), "DROP TABLE IF EXISTS "+table) }
	drop()
	t.Cleanup(drop)
	if err := db.ExecSQL(ctx, "CREATE TABLE "+table+" (id INTEGER NOT NULL PRIMARY KEY, v INTEGER NOT NULL, s VARCHAR(20) NOT NULL, amount DECIMAL(12, 2) NOT NULL)"+db.Dialect().TableOptions); err != nil {
		t.Fatalf("create: %v", err)
	}
	rows := make([][]any, 2500) // more than one multi-row INSERT
	for i := range rows {
		rows[i] = []any{i + 1, 0, fmt.Sprintf("s%d", i+1), 1.25}
	}
	if err := db.BulkInsert(ctx, table, []string{"id", "v", "s", "amount"}, rows); err != nil {
		t.Fatalf("bulk insert: %v", err)
	}
	count := func() (n int64, sum float64) {
		t.Helper()
		err := db.InTx(ctx, driver.TxOptions{ReadOnly: true}, func(tx driver.Tx) error {
			return tx.QueryRow(ctx, "SELECT COUNT(*), SUM(amount) FROM "+table).Scan(&n, &sum)
		})
		if err != nil {
			t.Fatalf("count: %v", err)
		}
		return n, sum
	}
	if n, sum := count(); n != 2500 || sum != 2500*1.25 {
		t.Fatalf("after bulk insert: %d rows, sum %v; want 2500, %v", n, sum, 2500*1.25)
	}

	// Commit.
	err := db.InTx(ctx, driver.TxOptions{}, func(tx driver.Tx) error {
		n, err := tx.Exec(ctx, "UPDATE "+table+" SET v = v + ? WHERE id <= ?", 5, 10)
		if err == nil && n != 10 {
			err = fmt.Errorf("updated %d rows, want 10", n)
		}
		return err
	})
	if err != nil {
		t.Fatalf("commit: %v", err)
	}
	// Rollback returns fn's error unchanged.
	mine := errors.New("user abort")
	err = db.InTx(ctx, driver.TxOptions{}, func(tx driver.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE "+table+" SET v = 100 WHERE id = ?", 1); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM "+table+" WHERE id = ?", 2); err != nil {
			return err
		}
		return mine
	})
	if err != mine {
		t.Fatalf("rollback: got %v, want fn's error", err)
	}
	var v int64
	var s string
	err = db.InTx(ctx, driver.TxOptions{}, func(tx driver.Tx) error {
		if err := tx.QueryRow(ctx, "SELECT v, s FROM "+table+" WHERE id = ?", 1).Scan(&v, &s); err != nil {
			return err
		}
		rs, err := tx.Query(ctx, "SELECT id FROM "+table+" WHERE id <= ? ORDER BY id", 3)
		if err != nil {
			return err
		}
		defer rs.Close()
		var ids []int64
		for rs.Next() {
			var id int64
			if err := rs.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		if err := rs.Err(); err != nil {
			return err
		}
		if fmt.Sprint(ids) != "[1 2 3]" {
			return fmt.Errorf("ids %v after a rolled-back delete, want [1 2 3]", ids)
		}
		return nil
	})
	if err != nil || v != 5 || s != "s1" {
		t.Fatalf("after commit and rollback: v=%d s=%q err=%v; want 5, s1, nil", v, s, err)
	}
	// No rows.
	err = db.InTx(ctx, driver.TxOptions{ReadOnly: true}, func(tx driver.Tx) error {
		return tx.QueryRow(ctx, "SELECT v FROM "+table+" WHERE id = ?", -1).Scan(&v)
	})
	if !errors.Is(err, driver.ErrNoRows) {
		t.Fatalf("missing row: got %v, want driver.ErrNoRows", err)
	}
	// A bad statement is an error, not a panic or a silent success.
	if err := db.ExecSQL(ctx, "UPDATE "+table+"_missing SET v = 1"); err == nil {
		t.Fatal("update of a missing table: no error")
	}

	if db.Dialect().ForUpdate != "" {
		deadlock(ctx, t, db, table)
	}
	busyPool(t, db, table, poolSize)
}

// busyPool runs as many transactions at once as the pool has connections,
// each with statements it has not run before: a driver that needed another
// connection for them (to prepare a statement on the pool) would wait
// forever.
func busyPool(t *testing.T, db driver.SQL, table string, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	started := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- db.InTx(ctx, driver.TxOptions{ReadOnly: true}, func(tx driver.Tx) error {
				started <- struct{}{}
				for len(started) < n && ctx.Err() == nil { // every connection is held
					time.Sleep(2 * time.Millisecond)
				}
				for k := 0; k < 3; k++ {
					var v int64
					q := fmt.Sprintf("SELECT COUNT(*) + %d FROM %s WHERE id > ?", 1000*i+k, table)
					if err := tx.QueryRow(ctx, q, k).Scan(&v); err != nil {
						return err
					}
				}
				return nil
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("%d transactions on a pool of %d connections: %v", n, n, err)
		}
	}
}

// deadlock locks rows 1 and 2 in opposite orders from two transactions:
// the database must abort one, and the error must be errclass.Conflict.
func deadlock(ctx context.Context, t *testing.T, db driver.SQL, table string) {
	var wg sync.WaitGroup
	errs := make([]error, 2)
	both := make(chan struct{}, 2)
	for i, order := range [][2]int{{1, 2}, {2, 1}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.InTx(ctx, driver.TxOptions{}, func(tx driver.Tx) error {
				if _, err := tx.Exec(ctx, "UPDATE "+table+" SET v = v + 1 WHERE id = ?", order[0]); err != nil {
					return err
				}
				both <- struct{}{}
				for len(both) < 2 && ctx.Err() == nil { // both hold their first lock
					time.Sleep(5 * time.Millisecond)
				}
				_, err := tx.Exec(ctx, "UPDATE "+table+" SET v = v + 1 WHERE id = ?", order[1])
				return err
			})
		}()
	}
	wg.Wait()
	failed := 0
	for _, err := range errs {
		if err != nil {
			failed++
			if c := errclass.Of(err); c != errclass.Conflict {
				t.Errorf("deadlock error classed %q, want conflict: %v", c, err)
			}
		}
	}
	if failed != 1 {
		t.Errorf("deadlock: %d transactions failed, want 1: %v", failed, errs)
	}
}

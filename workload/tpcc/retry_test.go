package tpcc

import (
	"context"
	"errors"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
)

// conflictDB is a driver.SQL whose transactions fail with a conflict the
// first `fail` times, then with `then`.
type conflictDB struct {
	driver.DB
	fail, calls int
	then        error
}

func (c *conflictDB) Dialect() driver.SQLDialect { return driver.SQLDialect{Name: "fake"} }
func (c *conflictDB) InTx(ctx context.Context, _ driver.TxOptions, _ func(driver.Tx) error) error {
	c.calls++
	if c.calls <= c.fail {
		return errclass.Wrap(errclass.Conflict, errors.New("deadlock detected"))
	}
	return c.then
}
func (c *conflictDB) ExecSQL(context.Context, string, ...any) error { return nil }
func (c *conflictDB) BulkInsert(context.Context, string, []string, [][]any) error {
	return nil
}

func TestRetryPolicy(t *testing.T) {
	other := errors.New("syntax error")
	for _, tc := range []struct {
		name      string
		retries   int
		fail      int
		then      error
		calls     int
		class     errclass.Class
		retriedOK int64
	}{
		{"conflict then success", 3, 2, nil, 3, errclass.None, 2},
		{"conflicts past the limit", 3, 10, nil, 4, errclass.Conflict, 3},
		{"no retries", 0, 1, nil, 1, errclass.Conflict, 0},
		{"other errors are not retried", 3, 0, other, 1, errclass.Other, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tiny(t, "tpcc.mix=0,100,0,0,0", "tpcc.retries="+itoa(tc.retries))
			db := &conflictDB{fail: tc.fail, then: tc.then}
			op, err := w.NewClient(0, 1).Do(context.Background(), db)
			if op != OpPayment || errclass.Of(err) != tc.class || db.calls != tc.calls {
				t.Errorf("op %s, error %v (class %q), %d attempts; want PAYMENT, class %q, %d attempts",
					opNames[op], err, errclass.Of(err), db.calls, tc.class, tc.calls)
			}
			if got := w.Retries()["PAYMENT"]; got != tc.retriedOK {
				t.Errorf("retries counted %d, want %d", got, tc.retriedOK)
			}
		})
	}
}

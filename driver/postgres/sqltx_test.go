package postgres

import (
	"testing"

	"github.com/dbrig/dbrig/driver/internal/sqltx/sqltxtest"
)

func TestSQLCapability(t *testing.T) {
	sqltxtest.Run(t, open(t, "pg.url="+schemaURL(t)), "sqltx_check", 4)
}

func TestDollar(t *testing.T) {
	var q queries
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT a FROM t WHERE x = ? AND y IN (?, ?)", "SELECT a FROM t WHERE x = $1 AND y IN ($2, $3)"},
	} {
		if got := q.dollar(tc.in); got != tc.want {
			t.Errorf("dollar(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := q.dollar(tc.in); got != tc.want { // cached
			t.Errorf("cached dollar(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

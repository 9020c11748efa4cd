package mysql

import (
	"testing"

	"github.com/dbrig/dbrig/driver/internal/sqltx/sqltxtest"
)

func TestSQLCapability(t *testing.T) {
	sqltxtest.Run(t, open(t, "mysql.dsn="+testDSN(t)), "sqltx_check", 4)
}

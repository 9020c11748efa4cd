package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/dbrig/dbrig/driver/internal/sqltx/sqltxtest"
)

func TestSQLCapability(t *testing.T) {
	dir := t.TempDir()
	sqltxtest.Run(t, open(t, dir, "sqlite.path="+filepath.Join(dir, "tx.db")), "sqltx_check", 4)
}

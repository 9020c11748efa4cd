package mysql

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cluster/clustertest"
)

func TestMariaDB(t *testing.T) {
	c := clustertest.Up(t, Cluster{Settings: map[string]string{"innodb-flush-log-at-trx-commit": "2"}}, cluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := sql.Open("mysql", c.Props()["mysql.dsn"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// User dbrig owns database dbrig, and the setting reached the server.
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (k VARCHAR(10) PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := db.QueryRowContext(ctx, "SELECT @@innodb_flush_log_at_trx_commit").Scan(&v); err != nil || v != "2" {
		t.Fatalf("innodb_flush_log_at_trx_commit = %q (%v), want 2", v, err)
	}
	if n := c.Nodes()[0]; n.Version == "" || !strings.HasPrefix(c.Props()["mysql.dsn"], "dbrig:") {
		t.Errorf("node %+v, props %v", n, c.Props())
	}
	db.Close()
	clustertest.Down(t, c)
}

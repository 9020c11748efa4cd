package cli

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", to drop the test's table

	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/results"
)

// A second load into a SQL table that already holds the records stops before
// anything is stored (exit 2) and says what to do; --skip-load runs on the
// loaded data and --recreate drops it and loads again.
func TestSecondLoadIntoFilledTable(t *testing.T) {
	for _, tc := range []struct {
		driver string
		props  func(t *testing.T, table string) []string
	}{
		{"sqlite", func(t *testing.T, _ string) []string {
			return []string{"-p", "sqlite.path=" + filepath.Join(t.TempDir(), "data.db")}
		}},
		{"postgres", func(t *testing.T, table string) []string {
			url := testenv.Need(t, "DBRIG_PG_URL")
			t.Cleanup(func() {
				db, err := sql.Open("pgx", url)
				if err != nil {
					t.Error(err)
					return
				}
				defer db.Close()
				if _, err := db.Exec(`DROP TABLE IF EXISTS "` + table + `"`); err != nil {
					t.Errorf("drop %s: %v", table, err)
				}
			})
			return []string{"-p", "pg.url=" + url}
		}},
	} {
		t.Run(tc.driver, func(t *testing.T) {
			ctx := context.Background()
			table := fmt.Sprintf("twice%d", time.Now().UnixNano()%1e9)
			store := filepath.Join(t.TempDir(), "r.db")
			common := append([]string{"--driver", tc.driver, "--store", store, "--quiet", "-P", "workloada",
				"-p", "recordcount=200", "-p", "table=" + table}, tc.props(t, table)...)
			runArgs := func(extra ...string) []string {
				return append(append([]string{"run", "-p", "operationcount=100"}, common...), extra...)
			}
			runs := func() int {
				rows, err := openStore(t, store).ListRuns(ctx, results.Filter{})
				if err != nil {
					t.Fatal(err)
				}
				return len(rows)
			}
			loaded := func(what string) {
				t.Helper()
				rows, err := openStore(t, store).ListRuns(ctx, results.Filter{})
				if err != nil || len(rows) == 0 {
					t.Fatalf("%s: runs %v, %v", what, rows, err)
				}
				d, err := openStore(t, store).Run(ctx, rows[0].ID)
				if err != nil {
					t.Fatal(err)
				}
				// A load into the old rows would have failed on a duplicate key.
				if l, ok := d.Phase("load"); !ok || l.Overall.Count == 0 || l.Overall.Errors != 0 || d.Status != "done" {
					t.Errorf("%s: run %d: status %s, load phase stored %v: %+v", what, d.ID, d.Status, ok, l.Overall)
				}
			}

			if code, _, errOut := dbrig(t, ctx, append([]string{"load"}, common...)...); code != 0 {
				t.Fatalf("first load: exit %d\n%s", code, errOut)
			}
			before := runs()
			code, _, errOut := dbrig(t, ctx, runArgs()...)
			if code != 2 || !strings.Contains(errOut, "table "+table+" of "+tc.driver+" already holds records") ||
				!strings.Contains(errOut, "--skip-load") || !strings.Contains(errOut, "--recreate") {
				t.Fatalf("run on a loaded table: exit %d, want 2 and what to do\n%s", code, errOut)
			}
			if got := runs(); got != before {
				t.Errorf("the refused run was stored: %d runs, want %d", got, before)
			}
			code, _, errOut = dbrig(t, ctx, append([]string{"load"}, common...)...)
			if code != 2 || !strings.Contains(errOut, "already holds records") || !strings.Contains(errOut, "--recreate") {
				t.Fatalf("load on a loaded table: exit %d, want 2 and --recreate\n%s", code, errOut)
			}
			if code, _, errOut := dbrig(t, ctx, runArgs("--skip-load")...); code != 0 {
				t.Fatalf("--skip-load: exit %d\n%s", code, errOut)
			}
			if code, _, errOut := dbrig(t, ctx, runArgs("--recreate")...); code != 0 {
				t.Fatalf("--recreate: exit %d\n%s", code, errOut)
			}
			loaded("--recreate")
			if code, _, errOut := dbrig(t, ctx, runArgs("--recreate", "--skip-load")...); code != 2 {
				t.Fatalf("--recreate --skip-load: exit %d, want 2\n%s", code, errOut)
			}
		})
	}
}

package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestTPCC runs TPC-C end to end on SQLite (embedded, a tiny database):
// load, run with the checks, the headline in the summary and the JSON, a
// reuse, bad input refused with the property named, and dbrig tpcc check
// failing on a database corrupted on purpose.
func TestTPCC(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "tpcc.db")
	store := filepath.Join(dir, "results.db")
	base := []string{"run", "-P", "tpcc", "--driver", "sqlite", "-p", "sqlite.path=" + dbPath, "-p", "tpcc.testscale=100",
		"--clients", "2", "--duration", "1s", "--quiet", "--store", store}

	code, out, errOut := dbrig(t, ctx, append(base, "-p", "tpcc.check=true", "--json")...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if tpmc, _ := res["tpmc"].(float64); tpmc <= 0 {
		t.Errorf("tpmc %v in the JSON, want > 0:\n%s", res["tpmc"], out)
	}
	if _, ok := res["tpm_total"].(float64); !ok || res["consistency_ok"] != 1.0 {
		t.Errorf("tpm_total %v, consistency_ok %v", res["tpm_total"], res["consistency_ok"])
	}
	if ops, _ := res["ops"].(map[string]any); ops["NEW_ORDER"] == nil || ops["PAYMENT"] == nil {
		t.Errorf("ops per transaction: %v", res["ops"])
	}
	for _, want := range []string{"tpmc ", "txn/min", "consistency_ok        passed", "load phase: ", "records/s"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("summary lacks %q:\n%s", want, errOut)
		}
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"loaded without reuse", base, "tpcc.reuse"},
		{"another scale", append(base, "-p", "tpcc.warehouses=2", "-p", "tpcc.reuse=true"), "tpcc.warehouses"},
		{"no warehouses", append(base, "-p", "tpcc.warehouses=0"), "tpcc.warehouses"},
		{"mix", append(base, "-p", "tpcc.mix=50,50,10,0,0"), "sum to 110"},
		{"no SQL", []string{"run", "-P", "tpcc", "--driver", "pebble", "--duration", "1s", "--quiet", "--store", store}, "driver.SQL"},
	} {
		code, out, errOut := dbrig(t, ctx, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, want 2 with %q:\n%s%s", tc.name, code, tc.want, out, errOut)
		}
	}
	if code, out, errOut := dbrig(t, ctx, append(base, "-p", "tpcc.reuse=true")...); code != 0 || !strings.Contains(out, "tpmc") {
		t.Errorf("reuse: exit %d\n%s%s", code, out, errOut)
	}

	check := []string{"tpcc", "check", "--driver", "sqlite", "-p", "sqlite.path=" + dbPath}
	if code, out, errOut := dbrig(t, ctx, check...); code != 0 || !strings.Contains(out, "passed") {
		t.Fatalf("tpcc check: exit %d\n%s%s", code, out, errOut)
	}
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE district SET d_ytd = d_ytd + 5 WHERE d_w_id = 1 AND d_id = 4"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, out, errOut = dbrig(t, ctx, check...)
	if code != 1 || !strings.Contains(errOut, "condition 1") || !strings.Contains(errOut, "warehouse 1") {
		t.Errorf("check of a corrupted database: exit %d, want 1 naming condition 1 and warehouse 1:\n%s%s", code, out, errOut)
	}
	// A run with the checks on the corrupted database fails and says why.
	code, out, errOut = dbrig(t, ctx, append(base, "-p", "tpcc.reuse=true", "-p", "tpcc.check=true")...)
	if code != 1 || !strings.Contains(errOut, "condition 1") || !strings.Contains(out+errOut, "consistency_ok        FAILED") {
		t.Errorf("run with checks on a corrupted database: exit %d\n%s%s", code, out, errOut)
	}
}

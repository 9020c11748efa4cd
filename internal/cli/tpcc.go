package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/dbrig/dbrig/experiment"
)

// tpccCmd: dbrig tpcc check --driver NAME -p key=value… — TPC-C's
// consistency conditions 1–4 on a loaded TPC-C database.
func tpccCmd(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "check" {
		return &usageError{msg: "usage: dbrig tpcc check --driver postgres|mysql|sqlite -p KEY=VALUE… (the driver's connection properties)"}
	}
	fs := newFlagSet("dbrig tpcc check", e.stderr)
	var props listFlag
	drv := fs.String("driver", "", "the database's driver: postgres, mysql or sqlite")
	fs.Var(&props, "p", "driver property key=value (pg.url, mysql.dsn, sqlite.path); repeatable")
	pos, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if len(pos) > 0 {
		return &usageError{msg: fmt.Sprintf("dbrig tpcc check: unexpected argument %q", pos[0])}
	}
	if err := experiment.TPCCCheck(ctx, *drv, props); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "TPC-C consistency conditions 1-4: passed")
	return nil
}

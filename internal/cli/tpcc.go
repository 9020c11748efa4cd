package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload"
	"github.com/dbrig/dbrig/workload/tpcc"
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
	reg := registry()
	d, ok := reg[*drv]
	if !ok {
		return &experiment.InputError{Err: fmt.Errorf("%w %q (expected one of: %s)", driver.ErrUnknownDriver, *drv, strings.Join(reg.Names(), ", "))}
	}
	p := spec.NewProps()
	for _, kv := range props {
		if err := p.SetFlag("-p", kv); err != nil {
			return &experiment.InputError{Err: err}
		}
	}
	p.Declare(d.Props...)
	p.Known("threadcount")
	scratch, err := os.MkdirTemp("", "dbrig-tpcc-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	db, err := d.Open(ctx, driver.Config{Props: p, Dir: scratch})
	if err != nil {
		if experiment.IsInput(err) {
			return &experiment.InputError{Err: err}
		}
		return fmt.Errorf("open %s: %w", *drv, err)
	}
	defer db.Close()
	if err := p.Unknown(); err != nil {
		return &experiment.InputError{Err: err}
	}
	err = tpcc.Check(ctx, db)
	var ie *workload.InputError
	switch {
	case errors.As(err, &ie):
		return &experiment.InputError{Err: err}
	case err != nil:
		return err
	}
	fmt.Fprintln(e.stdout, "TPC-C consistency conditions 1-4: passed")
	return nil
}

package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload"
	"github.com/dbrig/dbrig/workload/tpcc"
)

// TPCCCheck runs TPC-C's consistency conditions 1–4 (dbrig tpcc check) on
// the loaded database that driver drv reaches with the -p properties
// props (key=value); nil when they hold.
func TPCCCheck(ctx context.Context, drv string, props []string) error {
	reg := all.Registry()
	d, ok := reg[drv]
	if !ok {
		return &InputError{Err: fmt.Errorf("%w %q (expected one of: %s)", driver.ErrUnknownDriver, drv, strings.Join(reg.Names(), ", "))}
	}
	p := spec.NewProps()
	for _, kv := range props {
		if err := p.SetFlag("-p", kv); err != nil {
			return &InputError{Err: err}
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
		if IsInput(err) {
			return &InputError{Err: err}
		}
		return fmt.Errorf("open %s: %w", drv, err)
	}
	defer db.Close()
	if err := p.Unknown(); err != nil {
		return &InputError{Err: err}
	}
	err = tpcc.Check(ctx, db)
	var ie *workload.InputError
	switch {
	case errors.As(err, &ie):
		return &InputError{Err: err}
	case err != nil:
		return err
	}
	return nil
}

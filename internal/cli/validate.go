package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/report"
)

func validateCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig validate", e.stderr)
	short := fs.Bool("short", false, "a 10-second version (10 000 operations)")
	store := fs.String("store", "", "results database for the two validation runs")
	if _, err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return &usageError{msg: err.Error()}
	}
	v := experiment.ClassicValidation(*short)
	fmt.Fprintf(e.stderr, "validate: open model at %g ops/s, %d operations (~%.0f s), sim capacity %g ops/s, hiccup %v for %v\n",
		v.Rate, v.Ops, float64(v.Ops)/v.Rate, v.Capacity, v.Hiccup.Start, v.Hiccup.Duration)
	rep, err := v.Run(ctx, *store, experiment.Hooks{Warn: func(err error) { fmt.Fprintf(e.stderr, "warning: %v\n", err) }})
	if err != nil {
		return err
	}
	report.Validation(e.stdout, rep)
	if !rep.Pass {
		return fmt.Errorf("validation failed: measured mean response time %v is %.1f%% off the model's %v (tolerance %.0f%%)",
			format.Duration(time.Duration(rep.Open.Mean*float64(time.Microsecond))), 100*rep.Deviation, format.Duration(rep.Predicted), 100*rep.Tolerance)
	}
	return nil
}

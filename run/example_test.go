package run

import (
	"context"
	"fmt"
	"time"

	"github.com/dbrig/dbrig/measure"
)

// A closed-model run of exactly 1000 operations by 4 clients after a short
// warmup; the observer would normally store each interval as it arrives.
func ExampleRun() {
	db, wl := &fakeDB{}, &fakeWorkload{}
	cfg := Config{Clients: 4, Operations: 1000, Warmup: 20 * time.Millisecond}
	sums, err := Run(context.Background(), db, wl, cfg, &recorder{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range sums {
		if s.Phase == measure.PhaseMeasure {
			fmt.Println(s.Phase, s.Overall.Count, "ops,", s.Overall.Errors, "errors")
		}
	}
	// Output: measure 1000 ops, 0 errors
}

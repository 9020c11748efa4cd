package timeseries

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/spec"
)

// FuzzProps feeds property files to the time-series workloads: each is
// refused with a *spec.PropError or builds generators that run.
func FuzzProps(f *testing.F) {
	for _, n := range BuiltinNames() {
		b, _ := Builtin(n)
		f.Add(string(b))
	}
	f.Add(strings.Join(base, "\n") + "\ngroupbyfunction=avg\ngroupbykeys=0,1,1\nquerytimespan=120\nscanproportion=0.3\ndeleteproportion=0.1")
	f.Add(strings.Join(base, "\n") + "\ntimestampunits=HOURS\ndownsamplingfunction=min\ndownsamplinginterval=2\nsparsity=0.7\nrandomwritetimestamporder=true")
	f.Add(strings.Join(devopsBase, "\n") + "\ndevops.outoforder=0.5\nthreadcount=3")
	f.Add("workload=devops\ndevops.hosts=1\nrecordcount=0")
	f.Fuzz(func(t *testing.T, text string) {
		p := spec.NewProps()
		if err := p.Load("f", strings.NewReader(text)); err != nil {
			return
		}
		w, ok, err := Choose(p)
		if !ok {
			return
		}
		if err != nil {
			var pe *spec.PropError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want a *spec.PropError", err, err)
			}
			return
		}
		db := batchDB{newMemDB()}
		for id := 0; id < 2; id++ {
			c := w.NewClient(id, 1)
			for i := 0; i < 3; i++ {
				if n, err := c.Load(context.Background(), db, 5); n == 0 || err != nil {
					break
				}
			}
			for i := 0; i < 10; i++ {
				op, _ := c.Do(context.Background(), db)
				if op < 0 || op >= len(w.Ops()) {
					t.Fatalf("op %d outside Ops %v", op, w.Ops())
				}
			}
		}
	})
}

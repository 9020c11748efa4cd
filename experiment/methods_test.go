package experiment

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/null"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/spec"
)

// pickyDB is the null driver that cannot scan unless picky.scan=on.
type pickyDB struct {
	null.DB
	scan bool
}

func (db pickyDB) CanServe(method string) error {
	if method == driver.MethodScan && !db.scan {
		return fmt.Errorf("picky scans only with picky.scan=on: %w", errors.ErrUnsupported)
	}
	return nil
}

// A workload that calls a method the driver cannot serve is refused before
// the run is stored, naming the property that calls it (where it was set)
// and the driver's reason; served, or not called, it runs.
func TestUnservedMethodRefused(t *testing.T) {
	reg := driver.Registry{"picky": {
		Props: []spec.Decl{{Key: "picky.scan", Type: "string", Default: "off"}},
		Open: func(_ context.Context, cfg driver.Config) (driver.DB, error) {
			return pickyDB{scan: cfg.Props.String("picky.scan", "off") == "on"}, nil
		},
	}}
	tests := []struct {
		name  string
		files []string
		props []string
		want  string // in the error; "" = runs
	}{
		{"scans refused", []string{"workloade"}, nil, "workloade (built-in):"},
		{"scans from -p refused", []string{"workloada"}, []string{"scanproportion=0.1"}, `flag -p: property scanproportion="0.1"`},
		{"scans served", []string{"workloade"}, []string{"picky.scan=on"}, ""},
		{"no scans", []string{"workloada"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "r.db")
			p, err := Resolve(Options{Driver: "picky", Registry: reg, Store: store, PropFiles: tt.files,
				Props: append([]string{"recordcount=20", "operationcount=50"}, tt.props...)})
			if err != nil {
				t.Fatal(err)
			}
			out, err := Execute(context.Background(), p, Hooks{})
			if tt.want == "" {
				if err != nil || out == nil || out.Status != StatusDone {
					t.Fatalf("outcome %+v, err %v: want done", out, err)
				}
				return
			}
			var ue *UnservedError
			if out != nil || !IsInput(err) || !errors.As(err, &ue) || !errors.Is(err, errors.ErrUnsupported) {
				t.Fatalf("outcome %+v, err %v: want bad input, nothing stored", out, err)
			}
			for _, w := range []string{tt.want, "driver picky cannot serve Scan: picky scans only with picky.scan=on", "set scanproportion=0"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			s, err := results.Open(context.Background(), store)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if runs, err := s.ListRuns(context.Background(), results.Filter{}); err != nil || len(runs) != 0 {
				t.Errorf("stored runs %v (%v): want none", runs, err)
			}
		})
	}
}

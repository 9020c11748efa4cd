package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workloads"
)

// quickstart is what `dbrig run` uses when no -P file is given: YCSB
// workload A on a data set big enough to be worth measuring, for 10 seconds.
var quickstart = []string{"recordcount=100000", "operationcount=0", "maxexecutiontime=10"}

// buildProps assembles properties the way YCSB does: -P files in order, then
// -p values, which win. A -P name that is not a file but a built-in workload
// (workloada … workloadf, custom) uses the built-in copy.
func buildProps(files, sets []string) (*spec.Props, string, error) {
	p := spec.NewProps()
	var specText bytes.Buffer
	if len(files) == 0 {
		files = []string{"workloada"}
		sets = append(append([]string(nil), quickstart...), sets...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		name := f
		if errors.Is(err, os.ErrNotExist) {
			if builtin, ok := workloads.Lookup(f); ok {
				b, err, name = builtin, nil, f+" (built-in)"
			}
		}
		if err != nil {
			return nil, "", &inputError{fmt.Errorf("-P %s: %w (built-in workloads: %v)", f, err, workloads.Names())}
		}
		if err := p.Load(name, bytes.NewReader(b)); err != nil {
			return nil, "", &inputError{err}
		}
		fmt.Fprintf(&specText, "# -P %s\n%s\n", name, spec.RedactText(string(b)))
	}
	for _, kv := range sets {
		if err := p.SetFlag("-p", kv); err != nil {
			return nil, "", &inputError{err}
		}
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&specText, "# -p %s=%s\n", k, spec.RedactProp(k, v))
	}
	return p, specText.String(), nil
}

// inputError marks an error in what the user gave dbrig (exit code 2).
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

func isBadInput(err error) bool {
	var ie *inputError
	var pe *spec.PropError
	return errors.As(err, &ie) || errors.As(err, &pe)
}

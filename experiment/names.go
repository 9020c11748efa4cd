package experiment

import (
	"sort"

	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/workload/timeseries"
	"github.com/dbrig/dbrig/workload/tpcc"
)

// PropertyNames lists every property dbrig knows: each driver's declared
// ones, and what resolving a plain run reads (YCSB's workload, the runner).
func PropertyNames() []string {
	seen := map[string]bool{}
	reg := all.Registry()
	for _, name := range reg.Names() {
		for _, d := range reg[name].Props {
			seen[d.Key] = true
		}
	}
	if p, err := Resolve(Options{Driver: all.Null}); err == nil {
		for _, k := range p.Props.Looked() {
			seen[k] = true
		}
	}
	for _, d := range tpcc.Props() {
		seen[d.Key] = true
	}
	for _, d := range timeseries.DevopsProps() {
		seen[d.Key] = true
	}
	if p, err := Resolve(Options{Driver: all.Null, PropFiles: []string{"tsworkload_template"}}); err == nil {
		for _, k := range p.Props.Looked() {
			seen[k] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

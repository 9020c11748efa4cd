package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/workload/timeseries"
	"github.com/dbrig/dbrig/workload/tpcc"
	"github.com/dbrig/dbrig/workload/ycsb"
)

// completionCmd: dbrig completion bash — a bash completion script whose
// property names come from the same declarations the unknown-property check
// uses (every driver's, and the keys the workload and the runner read).
func completionCmd(_ context.Context, e *env, args []string) error {
	if len(args) != 1 || args[0] != "bash" {
		return usagef("dbrig completion: expected bash (then: source <(dbrig completion bash))")
	}
	return writeBashCompletion(e.stdout)
}

// propertyNames lists every property dbrig knows: each driver's declared
// ones, and what resolving a plain run reads (YCSB's workload, the runner).
func propertyNames() []string {
	seen := map[string]bool{}
	reg := registry()
	for _, name := range reg.Names() {
		for _, d := range reg[name].Props {
			seen[d.Key] = true
		}
	}
	if p, err := experiment.Resolve(experiment.Options{Driver: all.Null}); err == nil {
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
	if p, err := experiment.Resolve(experiment.Options{Driver: all.Null, PropFiles: []string{"tsworkload_template"}}); err == nil {
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

func flagNames(define func(*flag.FlagSet)) []string {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	define(fs)
	var out []string
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 {
			out = append(out, "-"+f.Name)
		} else {
			out = append(out, "--"+f.Name)
		}
	})
	return out
}

func writeBashCompletion(w io.Writer) error {
	cmds := make([]string, 0)
	for name := range commands() {
		cmds = append(cmds, name)
	}
	sort.Strings(cmds)
	runFlagList := flagNames(func(fs *flag.FlagSet) { (&runFlags{}).define(fs, true) })
	props := propertyNames()
	for i, p := range props {
		props[i] = p + "="
	}
	workloads := append(append(slices.Clone(ycsb.BuiltinNames()), timeseries.BuiltinNames()...), tpcc.Name)
	_, err := fmt.Fprintf(w, `# bash completion for dbrig: source <(dbrig completion bash)
_dbrig() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W %q -- "$cur")); return
	fi
	case "$prev" in
	--driver|-driver|-db) COMPREPLY=($(compgen -W %q -- "$cur")); return ;;
	-p|--p) compopt -o nospace 2>/dev/null; COMPREPLY=($(compgen -W %q -- "$cur")); return ;;
	-P|--P) COMPREPLY=($(compgen -W %q -f -- "$cur")); return ;;
	esac
	case "${COMP_WORDS[1]}" in
	run|load|bench) COMPREPLY=($(compgen -W %q -f -- "$cur")) ;;
	drivers) COMPREPLY=($(compgen -W %q -- "$cur")) ;;
	*) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -F _dbrig dbrig
`, strings.Join(cmds, " "), strings.Join(registry().Names(), " "), strings.Join(props, " "),
		strings.Join(workloads, " "), strings.Join(runFlagList, " "), strings.Join(registry().Names(), " "))
	return err
}

package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/dbrig/dbrig/cpuset"
)

// listFlag collects a repeatable flag (-P file, -p key=value, --tag t).
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// newFlagSet returns a flag set that reports errors instead of exiting. The
// standard library's flag package is used on purpose: it accepts YCSB's
// single-dash long flags (-threads, -target, -db, -P, -p) as well as --long.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseInterspersed parses flags that may come before, between or after
// positional arguments, and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// usageError is a mistake in how dbrig was called (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

const cpusUsage = "pin dbrig (the load generator, and the workers it starts) to these CPUs, e.g. 0 or 0-1; default: unpinned. Pin the servers to the others (dbrig cluster up --cpus)"

// cpusFlag reads a --cpus list and checks that this machine has the CPUs.
func cpusFlag(v string) (cpuset.Set, error) {
	set, err := cpuset.Parse(v)
	if err != nil {
		return nil, usagef("--cpus: %v", err)
	}
	if len(set) == 0 {
		if strings.TrimSpace(v) != "" {
			return nil, usagef("--cpus %q: expected at least one CPU", v)
		}
		return nil, nil
	}
	if err := set.Check(); err != nil {
		return nil, usagef("--cpus %s: %v", v, err)
	}
	return set, nil
}

// pinSelf pins this process to the --cpus list, if one was given.
func pinSelf(v string) error {
	set, err := cpusFlag(v)
	if err != nil || set == nil {
		return err
	}
	if err := cpuset.PinSelf(set); err != nil {
		return fmt.Errorf("--cpus %s: %w", v, err)
	}
	return nil
}

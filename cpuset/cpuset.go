// Package cpuset pins processes to CPUs: a load generator and the servers
// it drives share a small machine, and on 2 cores the scheduler moving them
// over each other's core made the same PostgreSQL target pass in one
// experiment and fail in the next. Pinning them apart (the generator on one
// core, the server on the rest) is the usual cure, as for pgbench.
//
// A set is written as Linux writes it (taskset -c, /sys/…/cpulist):
// "0", "1,3", "0-2,5".
package cpuset

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Set is a set of CPU numbers, kept sorted without repeats.
type Set []int

// maxCPU bounds a CPU number (the kernel's CPU_SETSIZE is 1024).
const maxCPU = 1023

// ErrSyntax is wrapped by every parse error.
var ErrSyntax = errors.New("expected CPU numbers and ranges such as 0,2-3")

// Parse reads a CPU list ("0-2,5"). The empty string is the empty set.
func Parse(s string) (Set, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := cpu(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = cpu(hi); err != nil {
				return nil, fmt.Errorf("cpu list %q: %w", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("cpu list %q: range %s runs backwards: %w", s, part, ErrSyntax)
			}
		}
		for c := a; c <= b; c++ {
			seen[c] = true
		}
	}
	out := make(Set, 0, len(seen))
	for c := range maxCPU + 1 {
		if seen[c] {
			out = append(out, c)
		}
	}
	return out, nil
}

func cpu(s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || s == "" || s[0] == '+' {
		return 0, fmt.Errorf("%q is not a CPU number: %w", s, ErrSyntax)
	}
	if n > maxCPU {
		return 0, fmt.Errorf("CPU %d is above %d: %w", n, maxCPU, ErrSyntax)
	}
	return n, nil
}

// String writes the set back in list form, ranges joined ("0-2,5").
func (s Set) String() string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

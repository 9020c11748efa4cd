//go:build !linux

package cpuset

import (
	"errors"
	"runtime"
)

var errUnsupported = errors.New("cpuset: pinning to CPUs needs Linux")

// Online is every CPU (no affinity here).
func Online() (Set, error) {
	s := make(Set, runtime.NumCPU())
	for i := range s {
		s[i] = i
	}
	return s, nil
}

// Check refuses any set: pinning needs Linux.
func (s Set) Check() error { return errUnsupported }

// PinSelf is not supported here.
func PinSelf(Set) error { return errUnsupported }

// StartPinned runs start unpinned for the empty set, else refuses.
func StartPinned(s Set, start func() error) error {
	if len(s) == 0 {
		return start()
	}
	return errUnsupported
}

// Of is not supported here.
func Of(int) (Set, error) { return nil, errUnsupported }

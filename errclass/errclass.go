// Package errclass sorts the errors of a database operation into a few
// classes, so a run can keep going through faults and count what went wrong.
//
// Drivers wrap their client library's errors with Wrap; the recorder reads
// the class back with Of. It imports only the standard library, so any
// package can depend on it.
package errclass

import (
	"context"
	"errors"
)

// Class is the kind of an error.
type Class string

const (
	None        Class = ""
	NotFound    Class = "not_found"
	Timeout     Class = "timeout"
	Unavailable Class = "unavailable"
	Conflict    Class = "conflict"
	Other       Class = "other"
)

// All lists every error class in a fixed order (index = Class.Index()), so
// counters can be arrays indexed by class.
var All = [...]Class{NotFound, Timeout, Unavailable, Conflict, Other}

// Index is the position of c in All, or -1 for None.
func (c Class) Index() int {
	for i, x := range All {
		if x == c {
			return i
		}
	}
	return -1
}

// ErrNotFound is wrapped by a driver's Read, Update and Delete when the key
// does not exist. Of classifies it as NotFound without a Wrap.
var ErrNotFound = errors.New("not found")

// ErrConflict is wrapped (with Conflict) when an update lost a race with a
// concurrent change of the same record.
var ErrConflict = errors.New("record changed concurrently")

// Error attaches a class to an error; errors.Is and errors.As see through it.
type Error struct {
	Class Class
	Err   error
}

func (e *Error) Error() string { return string(e.Class) + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Wrap attaches class to err; nil stays nil.
func Wrap(class Class, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Class: class, Err: err}
}

// Of tells the class of err: NotFound when it wraps ErrNotFound, else the
// class of the outermost Error in its chain, else Timeout for a deadline
// exceeded, else Other. A nil error is None.
func Of(err error) Class {
	if err == nil {
		return None
	}
	if errors.Is(err, ErrNotFound) {
		return NotFound
	}
	var ce *Error
	if errors.As(err, &ce) {
		return ce.Class
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Timeout
	}
	return Other
}

package experiment

import (
	"errors"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/scenario"
	"github.com/dbrig/dbrig/spec"
)

// InputError is a mistake in what the user asked for, found before anything
// ran or was stored (the CLI's exit code 2).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// IsInput tells whether err is bad input: an InputError or one of the typed
// errors that only bad input produces (a property with a wrong value, a
// property nobody reads, a load-model setting that cannot work, a driver that does not exist).
func IsInput(err error) bool {
	var ie *InputError
	var pe *spec.PropError
	var ue *spec.UnknownError
	var fe *spec.FileError
	var ce *run.ConfigError
	var se *scenario.BadInput
	return errors.As(err, &ie) || errors.As(err, &pe) || errors.As(err, &ue) || errors.As(err, &fe) || errors.As(err, &ce) || errors.As(err, &se) ||
		errors.Is(err, driver.ErrUnknownDriver)
}

// input wraps err as an InputError when it is bad input.
func input(err error) error {
	if err == nil || !IsInput(err) {
		return err
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return err
	}
	return &InputError{Err: err}
}

// The kinds of the events faults emit (package scenario's).
const (
	EventFault      = scenario.EventFault
	EventFaultStart = scenario.EventFaultStart
	EventFaultEnd   = scenario.EventFaultEnd
)

package experiment

import (
	"fmt"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
	"github.com/dbrig/dbrig/workload"
)

// UnservedError is a workload that calls a driver method the driver, as
// configured, cannot serve (driver.Capable): the run would measure nothing
// but errors, so it is refused before it is stored (bad input).
type UnservedError struct {
	Driver string
	Use    workload.MethodUse
	Prop   error // the property that makes the workload call it, as set (a *spec.PropError)
	Why    error // the driver's reason, naming the property that enables it
}

func (e *UnservedError) Error() string {
	return fmt.Sprintf("%v: driver %s cannot serve %s: %v; enable it, or set %s=0", e.Prop, e.Driver, e.Use.Method, e.Why, e.Use.Prop)
}

func (e *UnservedError) Unwrap() error { return e.Why }

// checkMethods refuses a workload that calls a method db cannot serve.
func (p *Plan) checkMethods(db driver.DB) error {
	c, ok := db.(driver.Capable)
	if !ok {
		return nil
	}
	mu, ok := p.Workload.(workload.MethodUser)
	if !ok || p.LoadOnly {
		return nil
	}
	for _, use := range mu.Methods() {
		if why := c.CanServe(use.Method); why != nil {
			return &InputError{Err: &UnservedError{Driver: p.Driver, Use: use, Prop: propAsSet(p.Props, use.Prop), Why: why}}
		}
	}
	return nil
}

// propAsSet is key as set, with where (its default when nobody set it).
func propAsSet(props *spec.Props, key string) error {
	return props.Errorf(key, "0 with this driver")
}

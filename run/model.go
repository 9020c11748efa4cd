package run

import (
	"fmt"
	"time"

	"github.com/dbrig/dbrig/loadmodel"
)

// Model decides when the operations of a phase start; the runner
// (runner.go) does everything else: phases, bounds, intervals, recording,
// interruption. Each model lives in its own file (closed.go, open.go) and
// checks its own settings. drive is unexported because a model works on the
// runner's phase state; a new model (rate schedules, shares of a distributed
// run) is one more file in this package.
type Model interface {
	// Check reports what is wrong with the model's settings for a run with
	// clients clients, before anything runs.
	Check(clients int) error
	// Settings are the model's own parameters in flat form (the Model,
	// Rate, Arrival, ThinkTime and MaxBacklog of a loadmodel.Load); the
	// rest of the Load is the Config's (Config.Settings).
	Settings() loadmodel.Load
	// targetRate is the mean rate (ops/s) the model asks for between two
	// offsets from the phase start (0: as fast as possible).
	targetRate(from, to time.Duration) float64
	// drive issues the phase's operations until ops of them were issued (0:
	// no count bound), the phase's deadline passes or the phase is stopped.
	// It returns extra detail for the phase_end event ("" for none).
	drive(ph *phase, ops int64) (endDetail string)
}

// Model names, as stored with a run.
const (
	ClosedName = loadmodel.Closed
	OpenName   = loadmodel.Open
)

// startDetail is the phase_start event's detail for a phase of ops
// operations and duration dur.
func startDetail(s loadmodel.Load, clients int, ops int64, dur time.Duration) string {
	d := fmt.Sprintf("model=%s clients=%d rate=%g operations=%d duration=%v", s.Model, clients, s.Rate, ops, dur)
	if s.Model == OpenName {
		d += fmt.Sprintf(" arrival=%s max_backlog=%d", s.Arrival, s.MaxBacklog)
	}
	return d
}

// ModelNamed builds the model called name ("" picks open when rate > 0, else
// closed) from the settings every model may take (the Rate, Arrival,
// ThinkTime and MaxBacklog of s; its Model is not read). The caller checks
// the result with Check; a name that is no model is an error here.
func ModelNamed(name string, s loadmodel.Load) (Model, error) {
	if name == "" {
		name = ClosedName
		if s.Rate > 0 {
			name = OpenName
		}
	}
	switch name {
	case ClosedName:
		if s.Arrival != "" && s.Arrival != ConstantName {
			return nil, &ConfigError{Field: "arrival", Value: s.Arrival, Want: "arrival processes belong to the open model; the closed model paces each client evenly"}
		}
		return Closed{Rate: s.Rate, ThinkTime: s.ThinkTime}, nil
	case OpenName:
		arr, err := ArrivalNamed(s.Arrival)
		if err != nil {
			return nil, err
		}
		if s.ThinkTime != 0 {
			return nil, &ConfigError{Field: "think time", Value: s.ThinkTime, Want: "applies to the closed model without a rate only"}
		}
		return Open{Rate: s.Rate, Arrival: arr, MaxBacklog: s.MaxBacklog}, nil
	}
	return nil, &ConfigError{Field: "model", Value: fmt.Sprintf("%q", name), Want: `expected "closed" or "open"`}
}

// ConfigError is a setting of a run that cannot work; nothing was run.
type ConfigError struct {
	Field string
	Value any
	Want  string
}

func (e *ConfigError) Error() string {
	if e.Value == nil {
		return "load config: " + e.Field + ": " + e.Want
	}
	return fmt.Sprintf("load config: %s = %v: %s", e.Field, e.Value, e.Want)
}

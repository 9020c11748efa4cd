package gate

import (
	"errors"

	"github.com/dbrig/dbrig/spec"
)

// ErrNoBaseline is Configure's error when neither the flags nor the file
// say what to check against.
var ErrNoBaseline = errors.New("expected --baseline ID|tag:NAME|history:N (or check.baseline in --file)")

// Configure merges an experiment file's check: block (nil: none) with the
// command's flags, which win: the rules of failOn (--fail-on), the
// confidence and the baseline (a run id, tag:NAME or history:N). Bad input
// is an *InputError naming the flag, or ErrNoBaseline.
func Configure(c *spec.Check, failOn []string, baseline, confidence string) (Options, spec.Baseline, error) {
	var o Options
	if c != nil {
		o.Rules, o.Confidence = c.FailOn, c.Confidence
		if baseline == "" {
			baseline = c.Baseline
		}
	}
	if len(failOn) > 0 {
		rules, err := Rules(failOn)
		if err != nil {
			return o, spec.Baseline{}, err
		}
		o.Rules = rules
	}
	if confidence != "" {
		conf, err := spec.ParseConfidence(confidence)
		if err != nil {
			return o, spec.Baseline{}, &InputError{Msg: "--confidence " + err.Error()}
		}
		o.Confidence = conf
	}
	if baseline == "" {
		return o, spec.Baseline{}, ErrNoBaseline
	}
	base, err := spec.ParseBaseline(baseline)
	if err != nil {
		return o, spec.Baseline{}, &InputError{Msg: "--baseline " + err.Error()}
	}
	return o, base, nil
}

package rating

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/run"
)

// KindReference is the kind of the reference probe's steps.
const KindReference = "reference"

// referenceLength is the reference probe's measured window.
const referenceLength = 2 * time.Second

// The reference probe: a fixed burst of reads, the client pool back to
// back (closed model) for referenceLength, before the first experiment
// and after the last, each on the data set reset and settled as for any
// experiment. The same burst on the same data twice: if what it completes
// moved, the store's or the machine's capacity moved during the rating,
// whatever the targets did, and the rating's interval widens by that much
// (interval.go). Reads only, so that the data set it leaves is the one it
// found. It has no verdict and is not part of the search or the spread.

// referenceOptions is the base as the reference probe runs it: reads
// only, the closed model with the rating's client pool, for dur.
func (o *Options) referenceOptions(dur time.Duration, name string, tags []string) experiment.Options {
	e := o.timed(dur, name, tags)
	e.Model = run.ClosedName
	for _, k := range []string{"updateproportion", "insertproportion", "scanproportion", "readmodifywriteproportion", "deleteproportion"} {
		e.Overrides = append(e.Overrides, experiment.Override{Flag: "rate (reference probe)", Key: k, Value: "0"})
	}
	e.Overrides = append(e.Overrides, experiment.Override{Flag: "rate (reference probe)", Key: "readproportion", Value: "1"})
	return e
}

// Reference is what the reference probe completed before the first and
// after the last experiment, and how far that moved.
type Reference struct {
	Before float64 `json:"before"` // ops/s
	After  float64 `json:"after"`  // ops/s; 0: not run (the rating ended early)
	// Moved is (After − Before) / Before (0 without After).
	Moved float64 `json:"moved"`
}

// referenceProbe runs the reference probe and records it.
func (r *rater) referenceProbe(ctx context.Context) error {
	st, err := r.experiment(ctx, KindReference, 0, referenceLength, 1)
	if err != nil {
		return err
	}
	if r.res.Reference == nil {
		r.res.Reference = &Reference{Before: st.Achieved}
		return nil
	}
	ref := r.res.Reference
	ref.After = st.Achieved
	if ref.Before > 0 {
		ref.Moved = (ref.After - ref.Before) / ref.Before
	}
	r.referenceDone = true
	return nil
}

// referenceReason says what the reference probe measured.
func referenceReason(clients int, achieved float64) string {
	return fmt.Sprintf("reference probe: %d clients reading back to back (closed model) completed %s ops/s", clients, format.Rate(achieved))
}

// describe says whether the capacity the rating saw moved ("" if it
// moved less than the precision or was not measured twice).
func (ref *Reference) describe(precision float64) string {
	if ref == nil || ref.After == 0 || math.Abs(ref.Moved) <= precision {
		return ""
	}
	return fmt.Sprintf("the reference probe completed %s ops/s before the first experiment and %s after the last (%+.0f%%, more than the precision): the capacity moved during the rating, and the interval is widened by that much",
		format.Rate(ref.Before), format.Rate(ref.After), ref.Moved*100)
}

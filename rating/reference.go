package rating

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
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
// after the last experiment, and how far that moved; and how far it moved
// from the last rating of the same data set (dataset.go).
type Reference struct {
	Before float64 `json:"before"` // ops/s
	After  float64 `json:"after"`  // ops/s; 0: not run (the rating ended early)
	// Moved is (After − Before) / Before (0 without After).
	Moved float64 `json:"moved"`
	// PreviousRating is the last earlier rating of the same data set in the
	// results store whose reference probe ran (0: none), Previous what that
	// probe completed before its first experiment (ops/s), and Since is
	// (Before − Previous) / Previous: how far the store's capacity moved
	// between the two ratings. Measured on PostgreSQL: a rating whose own
	// probe held within 3 % had started 11 % below the rating before it,
	// on the same data with the same condition, and its answer was 14 %
	// lower (docs/measurements/rating-pairs.md).
	PreviousRating int64   `json:"previous_rating,omitempty"`
	Previous       float64 `json:"previous,omitempty"`
	Since          float64 `json:"since_previous,omitempty"`
}

// widening is the factor the interval widens by, down and up (1: none):
// the larger of the moves the reference probe measured, within the rating
// and since the last one of the same data set, each as the ratio of the
// higher capacity to the lower (a fall by 20 % is a factor of 1.25).
func (ref *Reference) widening() float64 {
	if ref == nil {
		return 1
	}
	ratio := func(moved float64) float64 {
		if moved <= -1 {
			return math.Inf(1)
		}
		return math.Max(1+moved, 1/(1+moved))
	}
	f := 1.0
	if ref.After > 0 {
		f = ratio(ref.Moved)
	}
	if ref.PreviousRating != 0 {
		f = math.Max(f, ratio(ref.Since))
	}
	return f
}

// referenceProbe runs the reference probe and records it.
func (r *rater) referenceProbe(ctx context.Context) error {
	st, err := r.experiment(ctx, KindReference, 0, referenceLength, 1)
	if err != nil {
		return err
	}
	if r.res.Reference == nil {
		ref := &Reference{Before: st.Achieved}
		r.res.Reference = ref
		id, prev, ok, err := r.store.PreviousReference(ctx, r.datasetKey, r.id)
		if err != nil {
			return err
		}
		if ok && ref.Before > 0 {
			ref.PreviousRating, ref.Previous, ref.Since = id, prev, analysis.Moved(prev, ref.Before)
		}
		return nil
	}
	ref := r.res.Reference
	ref.After = st.Achieved
	ref.Moved = analysis.Moved(ref.Before, ref.After)
	r.referenceDone = true
	return nil
}

// referenceReason says what the reference probe measured.
func referenceReason(clients int, achieved float64) string {
	return fmt.Sprintf("reference probe: %d clients reading back to back (closed model) completed %s ops/s", clients, format.Rate(achieved))
}

// describe says whether the capacity the rating saw moved, during the
// rating or since the last rating of the same data set ("" if it moved
// less than the precision or was not measured twice).
func (ref *Reference) describe(precision float64) string {
	if ref == nil {
		return ""
	}
	var parts []string
	if ref.After > 0 && analysis.MovedMore(ref.Moved, precision) {
		parts = append(parts, fmt.Sprintf("the reference probe completed %s ops/s before the first experiment and %s after the last (%+.0f%%, more than the precision): the capacity moved during the rating, and the interval is widened by that much",
			format.Rate(ref.Before), format.Rate(ref.After), ref.Moved*100))
	}
	if ref.PreviousRating != 0 && analysis.MovedMore(ref.Since, precision) {
		parts = append(parts, fmt.Sprintf("the reference probe completed %s ops/s before the first experiment, where rating %d of the same data set completed %s (%+.0f%%, more than the precision): the store's capacity moved between the two ratings, and the interval is widened by that much",
			format.Rate(ref.Before), ref.PreviousRating, format.Rate(ref.Previous), ref.Since*100))
	}
	return strings.Join(parts, "; ")
}

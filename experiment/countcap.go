package experiment

import (
	"fmt"
	"time"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/spec"
)

// CountCap is a run asked for a duration (--duration, an experiment file's
// duration) whose operation count a property file caps: YCSB's files set
// operationcount (the built-in ones 1000), and as in YCSB a run ends at
// whichever limit comes first, so `-P workloadc --duration 5s` would end
// after 1000 operations, long before 5 s. dbrig keeps YCSB's rule (both
// limits hold) and says so before the run and in its summary.
type CountCap struct {
	Operations int64         // the cap
	Duration   time.Duration // what was asked
	Count      spec.Source   // where operationcount was set
	Asked      spec.Source   // where the duration was asked for
}

// Warning is the line printed before the run.
func (c *CountCap) Warning() string {
	return fmt.Sprintf("%s sets operationcount=%d: the run ends after %s operations, possibly long before the %v asked by %s (a run ends at whichever comes first, as in YCSB); for a timed run add -p operationcount=0",
		c.Count, c.Operations, format.Int(c.Operations), c.Duration, c.Asked)
}

// Ended says, after the run, whether the cap ended the measure phase before
// the duration asked for ("" when it did not).
func (c *CountCap) Ended(sums []measure.Summary) string {
	if c == nil {
		return ""
	}
	s, ok := measure.Measured(sums)
	if !ok || s.Overall.Count < c.Operations || s.End.Sub(s.Start) >= c.Duration {
		return ""
	}
	return fmt.Sprintf("the measure phase ended after operationcount=%d operations (%s), in %s of the %v asked: for a timed run add -p operationcount=0",
		c.Operations, c.Count, format.Elapsed(s.End.Sub(s.Start)), c.Duration)
}

// countCap finds a duration capped by a count set elsewhere, in a property
// file (nil when there is none: a count and a duration set in the same file
// are that file's choice, and a count from -p is the user's).
func countCap(p *spec.Props, ops int64, dur time.Duration) *CountCap {
	if ops == 0 || dur == 0 {
		return nil
	}
	_, csrc, ok := p.Lookup("operationcount")
	_, dsrc, dok := p.Lookup("maxexecutiontime")
	if !ok || !dok || csrc.File == "" || csrc.File == dsrc.File {
		return nil
	}
	return &CountCap{Operations: ops, Duration: dur, Count: csrc, Asked: dsrc}
}

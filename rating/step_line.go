package rating

import (
	"fmt"
	"strings"

	"github.com/dbrig/dbrig/format"
)

// Line says what one step of a rating by by found, on one line (dbrig
// rate's progress).
func (s Step) Line(by string) string {
	switch s.Kind {
	case KindProbe:
		return fmt.Sprintf("probe %.0f clients, closed: %s ops/s (run %d, %.1fs); the search starts at half of it", s.Target, format.Rate(s.Achieved), s.RunID, s.Seconds)
	case KindReference:
		return fmt.Sprintf("reference %.0f clients reading, closed: %s ops/s (run %d, %.1fs)%s", s.Target, format.Rate(s.Achieved), s.RunID, s.Seconds, s.conditionNote())
	}
	verdict := "pass"
	switch {
	case s.Inconclusive:
		// Not a failure of the target: dbrig was late, or the store drifted.
		verdict = "inconclusive (" + s.Why + "), repeated"
	case !s.Pass && s.StoppedEarly:
		verdict = "FAIL, stopped early"
	case !s.Pass:
		verdict = "FAIL"
	}
	if s.Vote > 0 {
		verdict += fmt.Sprintf(" (vote %d)", s.Vote)
	}
	var terms []string
	for _, t := range s.Terms {
		terms = append(terms, t.String())
	}
	return fmt.Sprintf("%s %s: %s — %s (run %d, %.1fs)%s%s", s.Kind, format.Target(by, s.Target), verdict, strings.Join(terms, ", "), s.RunID, s.Seconds, s.conditionNote(), s.loadNote())
}

// loadNote says how busy other processes kept the machine before the step
// ("" if not measured).
func (s Step) loadNote() string {
	if s.Others == nil {
		return ""
	}
	note := fmt.Sprintf("; others kept %.0f%% of the machine busy", *s.Others*100)
	if unloaded(*s.Others) == 0 && !s.Pass {
		note += " (too busy: this failure bounds nothing)"
	}
	return note
}

// conditionNote names a drift beyond the tolerance ("" if none).
func (s Step) conditionNote() string {
	if s.Drift == nil || !s.Drift.Drifted || s.Inconclusive {
		return ""
	}
	return "; store condition drifted: " + s.Drift.String()
}

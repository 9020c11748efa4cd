package rating

import (
	"fmt"
	"strings"

	"github.com/dbrig/dbrig/format"
)

// Line says what one step of a rating by by found, on one line (dbrig
// rate's progress).
func (s Step) Line(by string) string {
	if s.Kind == KindProbe {
		return fmt.Sprintf("probe %.0f clients, closed: %s ops/s (run %d, %.1fs); the search starts at half of it", s.Target, format.Rate(s.Achieved), s.RunID, s.Seconds)
	}
	verdict := "pass"
	if !s.Pass {
		verdict = "FAIL"
	}
	if s.StoppedEarly {
		verdict = "FAIL, stopped early"
	}
	if s.Vote > 0 {
		verdict += fmt.Sprintf(" (vote %d)", s.Vote)
	}
	var terms []string
	for _, t := range s.Terms {
		terms = append(terms, t.String())
	}
	return fmt.Sprintf("%s %s: %s — %s (run %d, %.1fs)", s.Kind, format.Target(by, s.Target), verdict, strings.Join(terms, ", "), s.RunID, s.Seconds)
}

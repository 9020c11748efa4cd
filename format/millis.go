package format

import (
	"strconv"
	"strings"
)

// Millis formats a duration of whole milliseconds to the millisecond, for
// figures that are compared at that precision (a fault's unavailable time
// and its verdict): 861ms, 2.0s, 1.234s, 75.5s.
func Millis(ms int64) string {
	if ms < 1000 {
		return strconv.FormatInt(max(ms, 0), 10) + "ms"
	}
	s := strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s + "s"
}

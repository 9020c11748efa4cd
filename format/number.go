// Package format turns numbers, durations and load models into the short
// text that dbrig shows people: in the terminal, in HTML reports and on the
// dashboard, which all use these functions so that one figure reads the same
// everywhere. Of dbrig it imports only loadmodel, the load settings it shows.
//
// Latencies are microseconds, as in package measure.
package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Micros formats a latency in microseconds with three significant digits:
// 850µs, 1.23ms, 12.3ms, 123ms, 1.23s; from 1000 s on, whole seconds.
// Zero and negative values are "0"; NaN is "NaN" and +Inf "∞".
func Micros(us float64) string {
	switch {
	case math.IsNaN(us):
		return "NaN"
	case us <= 0:
		return "0"
	case math.IsInf(us, 1):
		return "∞"
	// Unit bounds sit at x.5 so that rounding never shows "1000µs".
	case us < 999.5:
		return strconv.FormatFloat(math.Round(us), 'f', -1, 64) + "µs"
	case us < 999.5e3:
		return sig3(us/1e3) + "ms"
	case us < 999.5e6:
		return sig3(us/1e6) + "s"
	default:
		return fmt.Sprintf("%.0fs", us/1e6)
	}
}

// MicrosInt is Micros of a whole number of microseconds, as histograms give.
func MicrosInt(us int64) string { return Micros(float64(us)) }

// sig3 prints v (1 ≤ v < 1000) with three significant digits.
func sig3(v float64) string {
	switch {
	case v < 9.995:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 99.95:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}

// Int formats a count with thousands separators: 1,234,567.
func Int(n int64) string { return group(strconv.FormatInt(n, 10)) }

// group puts a comma between every three digits of an optionally signed
// string of digits.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	b.WriteString(sign)
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Rate formats operations per second: whole numbers with separators from 100
// up, one decimal below (a slow system's 12.5 ops/s should not read as 12 or
// 13). NaN is "NaN", infinities "∞" and "-∞".
func Rate(r float64) string {
	switch {
	case math.IsNaN(r):
		return "NaN"
	case math.IsInf(r, 1):
		return "∞"
	case math.IsInf(r, -1):
		return "-∞"
	case math.Abs(r) >= 100 || r == 0:
		// Through FormatFloat, not int64: rates beyond int64 must not wrap.
		return group(strconv.FormatFloat(math.Round(r), 'f', 0, 64))
	default:
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
}

// Seconds formats a time in seconds to the millisecond: "1.500 s".
func Seconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) + " s" }

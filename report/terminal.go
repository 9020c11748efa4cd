// Package report renders runs for people and programs. Terminal output lives
// in terminal*.go, summary*.go and json*.go; HTML and images elsewhere.
//
// Latencies are microseconds throughout, as in package measure. "Latency" and
// the unprefixed figures are response time (from the intended start); service
// time is always labelled as such.
package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// table writes rows with the first column and those in left left-aligned,
// the others (numbers) right-aligned, two spaces apart. Cells may hold
// multi-byte runes (µ).
type table struct {
	rows [][]string
	left map[int]bool
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer, indent string) error {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		var line strings.Builder
		line.WriteString(indent)
		for i, c := range r {
			if i > 0 {
				line.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i == 0 || t.left[i] {
				line.WriteString(c + pad)
			} else {
				line.WriteString(pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fmtUS formats a latency in microseconds with three significant digits:
// 850µs, 1.23ms, 12.3ms, 123ms, 1.23s.
func fmtUS(us float64) string {
	switch {
	case us <= 0:
		return "0"
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

func usInt(us int64) string { return fmtUS(float64(us)) }

// fmtInt formats n with thousands separators: 1,234,567.
func fmtInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// fmtRate formats operations per second: whole numbers from 100 up, one
// decimal below (a slow system's 12.5 ops/s should not read as 12 or 13).
func fmtRate(r float64) string {
	if r >= 100 || r == 0 {
		return fmtInt(int64(math.Round(r)))
	}
	return strconv.FormatFloat(r, 'f', 1, 64)
}

// fmtDur formats a wall-clock duration for people: 48s, 2m05s, 1h02m.
func fmtDur(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	default:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
}

// errWriter remembers the first write error so that a block of Fprintf calls
// needs one check.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func (e *errWriter) table(t *table, indent string) {
	if e.err == nil {
		e.err = t.write(e.w, indent)
	}
}

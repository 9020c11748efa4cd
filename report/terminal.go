// Package report renders runs for people and programs. Terminal output lives
// in terminal*.go, summary*.go and json*.go; HTML and images elsewhere.
//
// Report only renders: what it shows is computed by package analysis and
// formatted by package format. Latencies are microseconds throughout, as in
// package measure. "Latency" and the unprefixed figures are response time
// (from the intended start); service time is always labelled as such.
package report

import (
	"fmt"
	"io"
	"strings"
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

package format

import (
	"fmt"
	"strconv"
	"time"
)

// Elapsed formats a wall-clock duration (a phase, a run, an ETA) for people:
// 4.5s, 48s, 2m05s, 1h02m. Negative durations are shown as zero.
func Elapsed(d time.Duration) string {
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

// Duration formats a short duration such as a latency or a predicted
// response time with two decimals in the largest unit that fits: 1.23s,
// 4.50ms, 850µs (whole microseconds below a millisecond).
func Duration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%dµs", d.Microseconds())
	}
}

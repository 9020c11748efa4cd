package format

import (
	"math"
	"testing"
	"time"
)

func TestElapsed(t *testing.T) {
	for _, tt := range []struct {
		in   time.Duration
		want string
	}{
		{0, "0.0s"}, {-time.Second, "0.0s"}, {1500 * time.Millisecond, "1.5s"}, {9940 * time.Millisecond, "9.9s"},
		{12 * time.Second, "12s"}, {59 * time.Second, "59s"}, {125 * time.Second, "2m05s"},
		{59*time.Minute + 59*time.Second, "59m59s"}, {62 * time.Minute, "1h02m"}, {1000 * time.Hour, "1000h00m"},
		{time.Duration(math.MaxInt64), "2562047h47m"}, // Round saturates: no overflow
	} {
		if got := Elapsed(tt.in); got != tt.want {
			t.Errorf("Elapsed(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, tt := range []struct {
		in   time.Duration
		want string
	}{
		{0, "0µs"}, {850 * time.Microsecond, "850µs"}, {999*time.Microsecond + 999, "999µs"},
		{time.Millisecond, "1.00ms"}, {4500 * time.Microsecond, "4.50ms"}, {1234 * time.Millisecond, "1.23s"},
		{2 * time.Hour, "7200.00s"}, {-5 * time.Millisecond, "-5000µs"},
	} {
		if got := Duration(tt.in); got != tt.want {
			t.Errorf("Duration(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

package format

import (
	"math"
	"testing"
)

func TestMicros(t *testing.T) {
	for _, tt := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {-5, "0"}, {math.Inf(-1), "0"}, {math.NaN(), "NaN"}, {math.Inf(1), "∞"},
		{0.4, "0µs"}, {1, "1µs"}, {999.4, "999µs"}, {999.6, "1.00ms"}, {1000, "1.00ms"}, {1234, "1.23ms"},
		{9994, "9.99ms"}, {9996, "10.0ms"}, {12345, "12.3ms"}, {123456, "123ms"}, {999499, "999ms"},
		{999500, "1.00s"}, {1.5e6, "1.50s"}, {3.6e9, "3600s"}, {1e15, "1000000000s"},
	} {
		if got := Micros(tt.in); got != tt.want {
			t.Errorf("Micros(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := MicrosInt(2500); got != "2.50ms" {
		t.Errorf("MicrosInt(2500) = %q, want 2.50ms", got)
	}
}

func TestInt(t *testing.T) {
	for _, tt := range []struct {
		in   int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {-1234, "-1,234"}, {-999, "-999"},
		{1234567, "1,234,567"}, {math.MaxInt64, "9,223,372,036,854,775,807"},
		{math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		if got := Int(tt.in); got != tt.want {
			t.Errorf("Int(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRate(t *testing.T) {
	for _, tt := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {0.04, "0.0"}, {12.46, "12.5"}, {99.9, "99.9"}, {100.4, "100"}, {9998.6, "9,999"},
		{-12.5, "-12.5"}, {-1500, "-1,500"}, {1e20, "100,000,000,000,000,000,000"},
		{math.NaN(), "NaN"}, {math.Inf(1), "∞"}, {math.Inf(-1), "-∞"},
	} {
		if got := Rate(tt.in); got != tt.want {
			t.Errorf("Rate(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSeconds(t *testing.T) {
	for _, tt := range []struct {
		in   float64
		want string
	}{
		{0, "0.000 s"}, {1.5, "1.500 s"}, {0.0004, "0.000 s"}, {-2.25, "-2.250 s"}, {86400, "86400.000 s"},
		{math.NaN(), "NaN s"}, {math.Inf(1), "+Inf s"},
	} {
		if got := Seconds(tt.in); got != tt.want {
			t.Errorf("Seconds(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

package format

import (
	"math"
	"testing"
)

func TestTarget(t *testing.T) {
	for _, tt := range []struct {
		by   string
		x    float64
		want string
	}{
		{"rate", 12345.4, "12,345 ops/s"},
		{"rate", 42.25, "42.2 ops/s"},
		{"clients", 7.4, "7 clients"},
		{"rate", math.Inf(1), "∞"},
		{"clients", math.Inf(1), "∞"},
	} {
		if got := Target(tt.by, tt.x); got != tt.want {
			t.Errorf("Target(%q, %g) = %q, want %q", tt.by, tt.x, got, tt.want)
		}
	}
}

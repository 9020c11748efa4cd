package format

import (
	"fmt"
	"math"
)

// Target shows a rating's target (or answer) in the unit of what the
// rating searches: by "clients" a number of clients, else a rate in ops/s;
// +∞ (no upper bound yet) as ∞.
func Target(by string, x float64) string {
	if math.IsInf(x, 1) {
		return "∞"
	}
	if by == "clients" {
		return fmt.Sprintf("%.0f clients", x)
	}
	return Rate(x) + " ops/s"
}

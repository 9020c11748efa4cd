package run

import "time"

// ConstantName names the Constant arrival process.
const ConstantName = "constant"

// Constant arrivals are evenly spaced at 1/rate.
type Constant struct{}

// Name implements Arrival.
func (Constant) Name() string { return ConstantName }

// offsets computes arrival k from its index, not by summing gaps, so the
// schedule never drifts.
func (Constant) offsets(rate float64, _ int64) func() time.Duration {
	perNS := rate / 1e9
	var k int64
	return func() time.Duration {
		t := float64(k) / perNS
		k++
		return time.Duration(t)
	}
}

package run

// ConstantName names the Constant arrival process.
const ConstantName = "constant"

// Constant arrivals are evenly spaced: operation k arrives when the target
// rate asks for its k-th operation.
type Constant struct{}

// Name implements Arrival.
func (Constant) Name() string { return ConstantName }

// epochs counts, rather than sums gaps, so the schedule never drifts.
func (Constant) epochs(int64) func() float64 {
	var k float64
	return func() float64 {
		x := k
		k++
		return x
	}
}

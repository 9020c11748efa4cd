package run

import "fmt"

// Arrival is an arrival process of the open model: it yields the intended
// start of every operation. One process per file (arrival_*.go).
type Arrival interface {
	// Name is how the process is stored and given on the command line.
	Name() string
	// epochs returns the process at unit rate: the k-th value is when the
	// k-th operation arrives, counted in operations the target rate asks
	// for (the model's rate curve turns that into time); seed makes it
	// reproducible.
	epochs(seed int64) func() float64
}

// ArrivalNamed returns the arrival process called name ("" = constant).
func ArrivalNamed(name string) (Arrival, error) {
	switch name {
	case "", ConstantName:
		return Constant{}, nil
	case PoissonName:
		return Poisson{}, nil
	}
	return nil, &ConfigError{Field: "arrival", Value: fmt.Sprintf("%q", name), Want: `expected "constant" or "poisson"`}
}

// seedFor derives an independent seed for stream (clients, loaders,
// arrivals) and index i from the run's seed (splitmix64 finaliser).
func seedFor(seed int64, stream, i int) int64 {
	z := uint64(seed) + uint64(stream)<<32 + uint64(i)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return int64(z ^ (z >> 31))
}

const (
	streamClients = iota + 1
	streamLoaders
	streamArrivals
)

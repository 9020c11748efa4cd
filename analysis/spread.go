package analysis

// A rating's spread is the band where its runs contradicted each other:
// from the lowest target a run failed at, below a pass, to the highest a
// run passed at, above a failure. The rating finds the band (rating.Spread);
// this is the one rule for what it means, which the rating's verdict and
// every report of a stored rating share.

// RelativeSpread is a spread's width relative to its low end.
func RelativeSpread(low, high float64) float64 { return (high - low) / low }

// SpreadWider tells whether a relative spread is wider than the precision
// asked (with room for float rounding): then the rating's answer cannot be
// trusted to that precision.
func SpreadWider(relative, precision float64) bool { return relative > precision+1e-9 }

// Moved is how far a capacity moved from one measurement to the next, as
// (to − from) / from (0 when from is not positive): the reference probe's
// move within a rating and from the last rating of the same data set.
func Moved(from, to float64) float64 {
	if from <= 0 {
		return 0
	}
	return (to - from) / from
}

// MovedMore tells whether a move is larger than the precision, either way.
func MovedMore(moved, precision float64) bool {
	return moved > precision+1e-9 || -moved > precision+1e-9
}

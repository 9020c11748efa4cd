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

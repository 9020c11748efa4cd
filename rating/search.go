package rating

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/dbrig/dbrig/format"
)

// maxSearchSteps bounds a search: geometric growth from 1 op/s to 10^9 and a
// bisection to 0.1 % take fewer.
const maxSearchSteps = 60

// probe is one experiment at a target: did it meet the SLA.
type probe func(ctx context.Context, target float64) (pass bool, err error)

// NoAnswerError says that even the smallest target failed the SLA.
type NoAnswerError struct {
	By     string
	Lowest float64
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("no %s meets the SLA: even %s failed it", e.By, format.Target(e.By, e.Lowest))
}

// searcher finds the highest passing target: it grows geometrically from
// start until a target fails (or max is reached), then bisects between the
// highest pass and the lowest failure until they are within precision of
// each other. Identical targets are asked once (cached). With a capacity
// (the probe's throughput, probe.go) growth stops there first, and beyond
// it grows in widening steps (the precision, twice it, four times…): a
// target far above what the store completed at saturation cannot pass,
// and bisecting down from twice the capacity cost the simulated store ten
// failed runs above it.
type searcher struct {
	by        string  // "rate" or "clients" (whole numbers)
	start     float64 // first target
	max       float64 // 0: no upper bound
	min       float64 // lowest target worth trying
	growth    float64 // factor while no target has failed
	capacity  float64 // 0: none; else growth goes there first, then widens slowly
	widen     float64 // beyond the capacity: the next step's relative size
	precision float64 // relative: stop when hi − lo ≤ precision·lo
	cache     map[string]bool
	// atMax is set when the search stopped at max with the SLA still met.
	atMax bool
	// lo, hi: the bracket so far, the highest pass (0: none yet) and the
	// lowest failure (+Inf: none yet).
	lo, hi float64
}

func newSearcher(by string, start, max, precision float64) *searcher {
	s := &searcher{by: by, start: start, max: max, min: 1, growth: 2, precision: precision, cache: map[string]bool{}}
	return s
}

// key identifies a target for the cache: rates to 4 significant digits
// (what an open model can tell apart in a short run), clients exactly.
func (s *searcher) key(x float64) string {
	if s.by == ByClients {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// round makes a target what will actually be run.
func (s *searcher) round(x float64) float64 {
	if s.by == ByClients {
		return math.Max(1, math.Round(x))
	}
	f, _ := strconv.ParseFloat(s.key(x), 64)
	return f
}

// run searches; try is called once per distinct target. It returns the
// highest target that passed.
func (s *searcher) run(ctx context.Context, try probe) (float64, error) {
	s.lo, s.hi = 0, math.Inf(1)
	lo, hi := 0.0, math.Inf(1) // lo passed (0: none yet), hi failed
	defer func() { s.lo, s.hi = lo, hi }()
	x := s.round(s.start)
	for steps := 0; ; steps++ {
		if steps >= maxSearchSteps {
			return lo, fmt.Errorf("search: no answer within %d experiments (between %s and %s)", maxSearchSteps, format.Target(s.by, lo), format.Target(s.by, hi))
		}
		if err := ctx.Err(); err != nil {
			return lo, err
		}
		pass, cached := s.cache[s.key(x)]
		if !cached {
			var err error
			if pass, err = try(ctx, x); err != nil {
				return lo, err
			}
			s.cache[s.key(x)] = pass
		}
		if pass {
			lo = math.Max(lo, x)
		} else {
			hi = math.Min(hi, x)
		}
		s.lo, s.hi = lo, hi
		switch {
		case math.IsInf(hi, 1): // still growing
			if s.max > 0 && lo >= s.max {
				s.atMax = true
				return lo, nil
			}
			x = s.round(s.grow(lo))
			if s.max > 0 && x > s.max {
				x = s.max
			}
		case lo == 0: // the first target already failed: shrink
			if hi <= s.min {
				return 0, &NoAnswerError{By: s.by, Lowest: hi}
			}
			x = math.Max(s.min, s.round(hi/s.growth))
		default:
			if hi-lo <= s.precision*lo || (s.by == ByClients && hi-lo <= 1) {
				return lo, nil
			}
			x = s.round((lo + hi) / 2)
			if x <= lo || x >= hi { // rounding leaves nothing between
				return lo, nil
			}
		}
	}
}

// grow is the next target after the pass lo while no target has failed.
func (s *searcher) grow(lo float64) float64 {
	next := lo * s.growth
	switch {
	case s.capacity <= 0 || next <= s.capacity:
	case lo < s.capacity:
		next = s.capacity
	default:
		if s.widen == 0 {
			s.widen = s.precision
		}
		next = lo * (1 + s.widen)
		s.widen = math.Min(2*s.widen, s.growth-1)
	}
	if s.round(next) <= lo { // rounding left nothing between
		next = lo * s.growth
	}
	return next
}

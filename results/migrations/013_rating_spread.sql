-- Where a rating's runs contradicted each other: a run failed at
-- spread_low although one at spread_high (>= spread_low) passed. NULL: every
-- failure lay above every pass. Wider than precision_frac, the answer is
-- not known to the precision asked (rating/spread.go).
ALTER TABLE ratings ADD COLUMN spread_low DOUBLE PRECISION;
ALTER TABLE ratings ADD COLUMN spread_high DOUBLE PRECISION;
-- How steady the machine was before the rating: the coefficient of
-- variation of cache-bound work between 250 ms windows (machine package);
-- NULL: not measured.
ALTER TABLE ratings ADD COLUMN machine_cv DOUBLE PRECISION;

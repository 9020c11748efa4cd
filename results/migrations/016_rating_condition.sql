-- Each rating step's verdict and the store's condition before it (issue
-- 32). verdict: pass, fail or inconclusive ('' for the probes, which have
-- none; '' on steps stored before this column: read pass). A step is
-- inconclusive when it failed while dbrig's load generator was late or
-- while the store's condition had drifted from the reference: it was run
-- again, and inconclusive_why says why.
ALTER TABLE rating_steps ADD COLUMN verdict TEXT NOT NULL DEFAULT '';
ALTER TABLE rating_steps ADD COLUMN inconclusive_why TEXT NOT NULL DEFAULT '';
-- store_condition: JSON [{name, value, unit}], what the store measured after its
-- settle (driver.Conditioner; unit "share" is a fraction 0..1); NULL: not
-- measured. drift: the figure that moved most from the rating's reference
-- (the first step's condition), as (now - then) / then, or now - then for a
-- share; NULL: no reference to compare with.
ALTER TABLE rating_steps ADD COLUMN store_condition TEXT;
ALTER TABLE rating_steps ADD COLUMN drift DOUBLE PRECISION;
ALTER TABLE rating_steps ADD COLUMN drift_figure TEXT NOT NULL DEFAULT '';
-- The reference probe (a fixed closed-model read burst) before the first and
-- after the last experiment, ops/s; NULL: not run.
ALTER TABLE ratings ADD COLUMN reference_before DOUBLE PRECISION;
ALTER TABLE ratings ADD COLUMN reference_after DOUBLE PRECISION;
-- The interval the runs support: the answer widened by where runs
-- contradicted each other and by how far the reference probe moved; NULL:
-- no answer.
ALTER TABLE ratings ADD COLUMN interval_low DOUBLE PRECISION;
ALTER TABLE ratings ADD COLUMN interval_high DOUBLE PRECISION;
-- The time budget (--budget; 0: none), the up-front estimate of the
-- experiments' time, and whether the budget stopped the search (1) before
-- it reached the precision.
ALTER TABLE ratings ADD COLUMN budget_s DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE ratings ADD COLUMN estimate_s DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE ratings ADD COLUMN budget_stopped BIGINT NOT NULL DEFAULT 0;

-- Dispatch lag: how much later than it could have (when due, or when its
-- client became free) dbrig started an operation. It is the load
-- generator's own lateness inside every response time, kept apart so a
-- reader can tell what the harness added from what the system did.
ALTER TABLE intervals ADD COLUMN lag_p99_us BIGINT NOT NULL DEFAULT 0; -- OVERALL rows
ALTER TABLE phases ADD COLUMN lag_p50_us BIGINT NOT NULL DEFAULT 0;
ALTER TABLE phases ADD COLUMN lag_p99_us BIGINT NOT NULL DEFAULT 0;
ALTER TABLE phases ADD COLUMN lag_max_us BIGINT NOT NULL DEFAULT 0;

-- Ratings of the same data set (issue 32). dataset_key: a digest of what
-- defines the data set and the reference probe (the driver, the machine's
-- host name and every property of the probe, secrets redacted before it is
-- taken); '' for ratings stored before this column. Two ratings with the
-- same key rated the same data the same way on the same machine.
ALTER TABLE ratings ADD COLUMN dataset_key TEXT NOT NULL DEFAULT '';
-- The last earlier rating of the same data set whose reference probe ran,
-- and what that probe completed before its first experiment (ops/s): the
-- store's capacity between the two ratings moved by reference_before /
-- reference_previous − 1. NULL: none was stored.
ALTER TABLE ratings ADD COLUMN reference_previous_id BIGINT;
ALTER TABLE ratings ADD COLUMN reference_previous DOUBLE PRECISION;

-- The rate the load model asked for over each interval (OVERALL rows; 0
-- when it ran as fast as it could): with a rate schedule it changes second
-- by second, and achieved throughput is read against it.
ALTER TABLE intervals ADD COLUMN target_rate DOUBLE PRECISION NOT NULL DEFAULT 0;

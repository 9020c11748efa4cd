-- Per-worker figures for diagnosis (which worker fell behind): what the
-- exact merge of a distributed run cannot give back afterwards. Percentiles
-- do not add, so each worker's own are kept beside its counts.
ALTER TABLE run_workers ADD COLUMN clients BIGINT NOT NULL DEFAULT 0;     -- the share's clients
ALTER TABLE run_workers ADD COLUMN resp_p50_us BIGINT NOT NULL DEFAULT 0; -- measure phase, all operations (0: none)
ALTER TABLE run_workers ADD COLUMN resp_p99_us BIGINT NOT NULL DEFAULT 0;
ALTER TABLE run_workers ADD COLUMN lag_p99_us BIGINT NOT NULL DEFAULT 0;  -- measure phase dispatch lag
ALTER TABLE run_worker_intervals ADD COLUMN resp_p99_us BIGINT NOT NULL DEFAULT 0; -- the worker's second, all operations
ALTER TABLE run_worker_intervals ADD COLUMN target_rate DOUBLE PRECISION NOT NULL DEFAULT 0; -- its share's target ops/s (0: none)

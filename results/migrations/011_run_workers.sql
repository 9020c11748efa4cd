-- The workers of a distributed run (dbrig run --workers N): one row per
-- worker process, for diagnosis. The run's own intervals and phases are
-- the exact merge of all workers; these rows say who did what and which
-- worker was lost or fell behind.
CREATE TABLE run_workers (
    run_id          BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx             BIGINT NOT NULL, -- the worker's index (its share)
    host            TEXT   NOT NULL,
    pid             BIGINT NOT NULL,
    clock_offset_us BIGINT NOT NULL, -- worker clock minus coordinator clock, measured at connect
    rtt_us          BIGINT NOT NULL, -- round trip of the ping the offset came from
    ops             BIGINT NOT NULL, -- operations of the warmup and measure phases
    records         BIGINT NOT NULL, -- records the worker loaded
    status          TEXT   NOT NULL, -- done, failed, lost, interrupted
    lost_at         TEXT,            -- when the coordinator noticed the loss (RFC 3339)
    detail          TEXT   NOT NULL, -- why it failed or was lost ('' if done)
    PRIMARY KEY (run_id, idx)
);

-- Per worker, per interval: how many operations each worker completed in
-- each second of each phase (the merged interval of the same phase and
-- seq holds them all).
CREATE TABLE run_worker_intervals (
    run_id  BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx     BIGINT NOT NULL,
    phase   TEXT   NOT NULL,
    seq     BIGINT NOT NULL, -- 0, 1, … within the phase
    ops     BIGINT NOT NULL,
    errors  BIGINT NOT NULL,
    dropped BIGINT NOT NULL,
    lag_p99_us BIGINT NOT NULL, -- the worker's dispatch lag, 99th percentile (0 without lag)
    PRIMARY KEY (run_id, idx, phase, seq)
);

-- What each fault of a run cost, as dbrig computed it from the run's stored
-- intervals and events when the run ended (analysis.Impacts can compute it
-- again from them). Latencies in µs, times in ms since the run's start.
CREATE TABLE impacts (
    run_id                BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    fault                 TEXT   NOT NULL, -- its name in the scenario
    target                TEXT   NOT NULL, -- what it hit: fault, target, nodes and pids
    outcome               TEXT   NOT NULL, -- injected, healed, failed: why
    start_ms              BIGINT NOT NULL,
    end_ms                BIGINT NOT NULL, -- = start_ms for an instant fault (kill)
    baseline_p50_us       BIGINT NOT NULL, -- the calm before the run's first fault
    baseline_p95_us       BIGINT NOT NULL,
    baseline_p99_us       BIGINT NOT NULL,
    fault_p50_us          BIGINT NOT NULL, -- the fault's own window (at least its first second)
    fault_p95_us          BIGINT NOT NULL,
    fault_p99_us          BIGINT NOT NULL,
    after_p50_us          BIGINT NOT NULL, -- after it, until the next fault or the phase's end
    after_p95_us          BIGINT NOT NULL,
    after_p99_us          BIGINT NOT NULL,
    throughput_change_pct DOUBLE PRECISION NOT NULL, -- successful ops/s, fault window against baseline
    errors                BIGINT NOT NULL, -- failed operations in the fault and after windows
    unavailable_ms        BIGINT NOT NULL, -- seconds with no successful operation, in ms
    recovery_ms           BIGINT             -- NULL: not recovered before the phase ended
);
CREATE INDEX impacts_run ON impacts (run_id);

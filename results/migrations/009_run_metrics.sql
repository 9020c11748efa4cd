-- Headline metrics of a run, computed by its workload from the measure
-- phase (workload.Headliner): TPC-C's tpmC and tpmTotal, its conflict
-- retries, and the result of its consistency checks (consistency_ok: 1
-- passed, 0 failed; absent when none ran). One row per metric.
CREATE TABLE run_metrics (
    run_id BIGINT           NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name   TEXT             NOT NULL, -- short and stable: tpmc, tpm_total, retries_new_order
    value  DOUBLE PRECISION NOT NULL,
    unit   TEXT             NOT NULL, -- e.g. txn/min; '' for a count
    doc    TEXT             NOT NULL, -- one line: what it counts
    ord    BIGINT           NOT NULL, -- the workload's order (headline first)
    PRIMARY KEY (run_id, name)
);

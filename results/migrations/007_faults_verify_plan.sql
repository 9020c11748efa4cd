-- Lost writes: with verify: true, dbrig remembers every insert and delete
-- the database acknowledged during the run and reads them all back after
-- the last fault healed (Jepsen's lost writes). Keys with an operation whose
-- outcome is unknown (it failed: it may or may not have been applied) are
-- not judged, only counted.
CREATE TABLE verifications (
    run_id              BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    inserts_acked       BIGINT NOT NULL, -- keys whose last acknowledged write was an insert
    deletes_acked       BIGINT NOT NULL, -- keys whose last acknowledged write was a delete
    uncertain           BIGINT NOT NULL, -- keys not judged: an insert or delete failed (may have been applied)
    lost_inserts        BIGINT NOT NULL, -- acknowledged inserts that are missing
    resurrected_deletes BIGINT NOT NULL, -- acknowledged deletes that came back
    unreadable          BIGINT NOT NULL, -- keys the read-back could not read (an error other than not found)
    took_ms             BIGINT NOT NULL
);
CREATE INDEX verifications_run ON verifications (run_id);

-- The exact fault plan of a run, resolved before it started (which fault,
-- on which target and link, when, for how long, with which settings), so
-- dbrig bench --replay RUN_ID runs the same plan again. The node a role
-- (leader) resolved to is in the run's events.
CREATE TABLE fault_plans (
    run_id   BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL, -- firing order
    name     TEXT   NOT NULL,
    fault    TEXT   NOT NULL, -- kill, stop, pause, restart, command, partition, delay, bandwidth, drop
    target   TEXT   NOT NULL, -- a node name or a role
    link     TEXT   NOT NULL, -- network faults: client or peer ('' otherwise)
    groups   TEXT   NOT NULL, -- partition into groups: etcd1|etcd2,etcd3 ('' otherwise)
    at_ms    BIGINT NOT NULL, -- offset into the measure phase (conditional: when it is armed)
    stable_ms BIGINT NOT NULL, -- conditional (when: stable): fires once stable this long; 0: at at_ms
    for_ms   BIGINT NOT NULL, -- 0: instant
    delay_us BIGINT NOT NULL,
    jitter_us BIGINT NOT NULL,
    rate     BIGINT NOT NULL, -- bytes per second
    mode     TEXT   NOT NULL, -- drop: reset or blackhole; restart: stop or kill
    run      TEXT   NOT NULL, -- command: sha256:HEX of the shell command (never its text: it may hold a secret)
    heal     TEXT   NOT NULL, -- command: sha256:HEX of the heal command ('' none)
    PRIMARY KEY (run_id, seq)
);

-- The per-operation timeline of a run with faults, for recovery and
-- unavailable time at millisecond resolution: every operation of the
-- measure phase as (intended start, response time, success), sorted by
-- intended start, encoded as varints: the start as a delta from the one
-- before in µs, the response time in µs, then 0/1. About 5-7 bytes per
-- operation (5-7 MB per million); see results/timeline.go.
CREATE TABLE timelines (
    run_id BIGINT NOT NULL PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    ops    BIGINT NOT NULL,
    data   {{blob}} NOT NULL
);

-- What ran where, and what it did: the nodes of a local cluster dbrig
-- started (none for an embedded or external system), and once-a-second
-- samples of every node's process (and of dbrig itself) from /proc.

-- One row per node of the system under test.
CREATE TABLE nodes (
    run_id   BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name     TEXT   NOT NULL, -- e.g. etcd1, primary, replica1, sentinel2
    role     TEXT   NOT NULL, -- member, primary, replica, sentinel …
    system   TEXT   NOT NULL, -- etcd, redis, postgres …
    pid      BIGINT NOT NULL,
    ports    TEXT   NOT NULL, -- JSON: {"client": 23791, "peer": 23792}
    addr     TEXT   NOT NULL, -- client address, 127.0.0.1:PORT
    data_dir TEXT   NOT NULL,
    log      TEXT   NOT NULL, -- log file path
    bin_path TEXT   NOT NULL, -- the server binary
    version  TEXT   NOT NULL, -- '' if unknown
    PRIMARY KEY (run_id, name)
);

-- One row per process sampled per second: the nodes (a node's whole
-- process tree for PostgreSQL) and "dbrig", the load generator itself.
CREATE TABLE metrics (
    run_id      BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    node        TEXT   NOT NULL, -- node name, or dbrig
    at          TEXT   NOT NULL, -- sample time
    t_ms        BIGINT NOT NULL, -- at − run start, in ms (same clock as intervals and events)
    cpu_user    DOUBLE PRECISION NOT NULL, -- % of one CPU over the last second (200 = two cores)
    cpu_sys     DOUBLE PRECISION NOT NULL,
    rss_bytes   BIGINT NOT NULL,
    read_bytes  BIGINT NOT NULL, -- storage I/O over the last second
    write_bytes BIGINT NOT NULL,
    ctx_switches BIGINT NOT NULL, -- voluntary + involuntary over the last second
    fds         BIGINT NOT NULL, -- open file descriptors
    gone        BIGINT NOT NULL  -- 1: the process had exited (its last row)
);
CREATE INDEX metrics_run ON metrics (run_id, t_ms);


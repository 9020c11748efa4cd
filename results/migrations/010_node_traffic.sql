-- Which node served how much of a run with faults: the bytes dbrig's
-- client proxy in front of each node forwarded, once a second (the driver
-- talks to every node through one; see experiment/traffic.go).
CREATE TABLE node_traffic (
    run_id     BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    node       TEXT   NOT NULL,
    t_ms       BIGINT NOT NULL, -- end of the second, since the run's start
    bytes_up   BIGINT NOT NULL, -- from dbrig to the node, over the last second
    bytes_down BIGINT NOT NULL, -- from the node back
    conns      BIGINT NOT NULL  -- connections opened over the last second
);
CREATE INDEX node_traffic_run ON node_traffic (run_id, t_ms);

-- Gauges dbrig samples from the system during a run with faults, several
-- times a second: replay_lag_bytes of each PostgreSQL replica (the
-- primary's WAL position minus the replica's replay position).
CREATE TABLE node_gauges (
    run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    node   TEXT   NOT NULL,
    t_ms   BIGINT NOT NULL, -- since the run's start
    name   TEXT   NOT NULL,
    value  DOUBLE PRECISION NOT NULL
);
CREATE INDEX node_gauges_run ON node_gauges (run_id, t_ms);

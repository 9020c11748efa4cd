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

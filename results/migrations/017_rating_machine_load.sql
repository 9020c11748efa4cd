-- The machine's load during a rating (issue 32): before each experiment,
-- after its reset and settle, the share of the machine's cores (0..1) that
-- processes other than dbrig kept busy for 300 ms; NULL: not measured.
ALTER TABLE rating_steps ADD COLUMN others_share DOUBLE PRECISION;
-- Per rating: their mean and maximum over the steps, and the machine's
-- cores (0: not measured).
ALTER TABLE ratings ADD COLUMN others_mean DOUBLE PRECISION;
ALTER TABLE ratings ADD COLUMN others_max DOUBLE PRECISION;
ALTER TABLE ratings ADD COLUMN cores BIGINT NOT NULL DEFAULT 0;
-- 1: no failure bounds the interval (each ran while other processes kept
-- more than half the machine busy): interval_high is the lowest failure as
-- run, and the store on the machine unloaded may do any amount more.
ALTER TABLE ratings ADD COLUMN interval_unbounded BIGINT NOT NULL DEFAULT 0;

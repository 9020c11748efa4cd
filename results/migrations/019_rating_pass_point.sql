-- The final runs' pass point (issue 32, analysis.FitPassPoint): the target
-- they passed as often as they failed (pass_mid), its likelihood band
-- (pass_low … pass_high), the fitted scale of the pass probability
-- (pass_scale, relative: it falls from 73 % to 27 % between
-- pass_mid/(1+scale) and pass_mid·(1+scale)), and how many final runs it
-- was fitted to (final_runs, inconclusive ones not counted) and how many
-- of them passed (final_passes). pass_mid NULL: no fit (every final run
-- passed, or none did, or none ran; or stored before these columns).
ALTER TABLE ratings ADD COLUMN pass_mid DOUBLE PRECISION;
ALTER TABLE ratings ADD COLUMN pass_low DOUBLE PRECISION;
ALTER TABLE ratings ADD COLUMN pass_high DOUBLE PRECISION;
ALTER TABLE ratings ADD COLUMN pass_scale DOUBLE PRECISION;
ALTER TABLE ratings ADD COLUMN final_runs BIGINT NOT NULL DEFAULT 0;
ALTER TABLE ratings ADD COLUMN final_passes BIGINT NOT NULL DEFAULT 0;

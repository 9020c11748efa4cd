-- Of a phase's dropped operations, those still waiting for a client when
-- the phase ended (the rest found the backlog full): two different causes,
-- which a summary explains apart.
ALTER TABLE phases ADD COLUMN dropped_late BIGINT NOT NULL DEFAULT 0;

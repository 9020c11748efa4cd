-- The process that records a run: its PID, start time (clock ticks after
-- boot, /proc/PID/stat), the kernel's boot id and PID namespace. A later
-- dbrig on the same boot and namespace whose check finds that process gone
-- marks a run it left "running" as abandoned (results/owner.go). NULL: a
-- run recorded before this step, or where /proc is absent.
ALTER TABLE runs ADD COLUMN owner_pid BIGINT;
ALTER TABLE runs ADD COLUMN owner_start BIGINT;
ALTER TABLE runs ADD COLUMN owner_boot TEXT;
ALTER TABLE runs ADD COLUMN owner_pidns TEXT;

-- Why a fault has no recovery time (analysis.Impact.RecoveryCut): 'next
-- fault' or 'end of run' when its window ended before the system had been
-- calm long enough, 'never calm' when the baseline had no calm second to
-- recover to. NULL: it recovered, or the run was stored before this step.
ALTER TABLE impacts ADD COLUMN recovery_cut TEXT;

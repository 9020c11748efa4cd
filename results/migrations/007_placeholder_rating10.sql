-- PLACEHOLDER on branch slice-rating10 only: version 007 belongs to another
-- slice (faults). Migrations may have no gaps, so this empty step lets 008
-- load on this branch. DELETE THIS FILE when merging; the real 007 replaces it.
-- Never apply it to a persistent store.
SELECT 1;

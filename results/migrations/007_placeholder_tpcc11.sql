-- PLACEHOLDER on branch slice-tpcc11 only: version 007 belongs to another
-- slice. Migrations may have no gaps, so this empty step lets 009 load on
-- this branch. DELETE THIS FILE when merging; the real 007 replaces it.
-- Never apply it to a persistent store.
SELECT 1;

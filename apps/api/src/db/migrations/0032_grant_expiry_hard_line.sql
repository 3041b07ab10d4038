-- Issue #52: app.settle_calls takes the moment of the settlement, by which grants expire and auto
-- top-up months turn (as app.admit_calls takes p_now); CREATE OR REPLACE cannot add an argument, so
-- the old signature goes first.
DROP FUNCTION IF EXISTS "app"."settle_calls"(uuid, uuid, date, jsonb);

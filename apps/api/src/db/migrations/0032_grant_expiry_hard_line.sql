-- Issue #52: usage never draws on a grant past its expiry. app.draw_grants takes the moment after
-- which a grant must expire to be drawn on (functions/draw-grants.sql), and app.settle_calls the
-- moment of the settlement, by which grants expire and auto top-up months turn (as app.admit_calls
-- takes p_now); CREATE OR REPLACE cannot add an argument, so the old signatures go first.
DROP FUNCTION IF EXISTS "app"."draw_grants"(uuid, bigint);--> statement-breakpoint
DROP FUNCTION IF EXISTS "app"."settle_calls"(uuid, uuid, date, jsonb);

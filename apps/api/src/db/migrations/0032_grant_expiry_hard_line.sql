-- Issue #52: usage never draws on a grant past its expiry. app.draw_grants takes the moment after
-- which a grant must expire to be drawn on (functions/draw-grants.sql); CREATE OR REPLACE cannot add
-- an argument, so the old signature goes first.
DROP FUNCTION IF EXISTS "app"."draw_grants"(uuid, bigint);

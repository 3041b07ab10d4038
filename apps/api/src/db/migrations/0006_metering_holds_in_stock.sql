-- app.admit_calls lives in db/functions/admit-calls.sql, re-applied on every migrate.
-- Its arguments gained p_keep_free: CREATE OR REPLACE would add an overload beside the signature
-- of 0005 (and a call with 8 arguments would then be ambiguous), so that signature is dropped here.
DROP FUNCTION IF EXISTS "app"."admit_calls"(uuid, text, jsonb, timestamptz, date, uuid[], bigint[], timestamptz);

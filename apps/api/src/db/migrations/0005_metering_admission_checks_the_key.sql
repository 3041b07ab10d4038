-- app.admit_calls lives in db/functions/admit-calls.sql and app.settle_calls in db/functions/settle-calls.sql, both re-applied on every migrate.
-- app.admit_calls replaces app.reserve_calls, still there on a database earlier code migrated through 0004.
DROP FUNCTION IF EXISTS "app"."reserve_calls"(uuid, uuid, date, bigint, uuid[], bigint[], timestamptz);

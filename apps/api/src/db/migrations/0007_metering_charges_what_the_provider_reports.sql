-- A call is charged what its provider reported, even above its hold: the excess is recorded on the
-- row (over_hold_nanos) and what the credit cannot pay as unpaid_nanos (app.settle_calls). Rows also
-- keep the price-list version they were priced with and the cached input tokens.
ALTER TABLE "app"."chat_completions"
	ADD COLUMN "cached_input_tokens" integer DEFAULT 0 NOT NULL,
	ADD COLUMN "price_version" text,
	ADD COLUMN "over_hold_nanos" bigint DEFAULT 0 NOT NULL,
	ADD COLUMN "unpaid_nanos" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- app.settle_calls lives in db/functions/settle-calls.sql, re-applied on every migrate.
-- Its result became a table, which CREATE OR REPLACE cannot change, so the one returning completion ids is dropped here.
DROP FUNCTION IF EXISTS "app"."settle_calls"(uuid, uuid, date, jsonb);

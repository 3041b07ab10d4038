-- Per-key controls for a key that lives in a web page (issue #18): the models it may call (null:
-- every priced model), the most output tokens one call may ask for (null: the model's own limit),
-- and the requests per minute one client address may make with it (null: no per-address cap).
-- Keys made before this change keep no per-address cap; the console warns about them.
ALTER TABLE "app"."publishable_keys" ADD COLUMN "allowed_models" jsonb;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "max_output_tokens_per_call" integer;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "client_requests_per_minute" integer;--> statement-breakpoint
-- Counts the key's edits: admission checks the key was not edited since the caller read it.
ALTER TABLE "app"."publishable_keys" ADD COLUMN "version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- One rate window table for every subject: a key (its id) or one client address of a key ("<key id> <address>").
ALTER TABLE "app"."key_rate_windows" RENAME TO "rate_windows";--> statement-breakpoint
ALTER TABLE "app"."rate_windows" RENAME COLUMN "publishable_key_id" TO "subject";--> statement-breakpoint
ALTER INDEX IF EXISTS "app"."key_rate_windows_pkey" RENAME TO "rate_windows_pkey";--> statement-breakpoint
CREATE INDEX "rate_windows_start" ON "app"."rate_windows" USING btree ("window_start");
--> statement-breakpoint
-- Admission now checks that the key was not edited since the caller read it (its version) instead of comparing its origins.
DROP FUNCTION IF EXISTS "app"."admit_calls"(uuid, text, jsonb, timestamptz, date, uuid[], bigint[], timestamptz, bigint);

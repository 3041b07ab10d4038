-- Per-key controls for a key that lives in a web page (issue #18): the models it may call (null:
-- every priced model), the most output tokens one call may ask for (null: the model's own limit),
-- and the requests per minute and dollars per UTC day one client address may use with it (null: no
-- per-address cap).
-- Keys made before this change keep no per-address cap; the console warns about them.
ALTER TABLE "app"."publishable_keys" ADD COLUMN "allowed_models" jsonb;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "max_output_tokens_per_call" integer;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "client_requests_per_minute" integer;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "client_spend_per_day_nanos" bigint;--> statement-breakpoint
-- What one client address of a key spent (and holds reserved) in one UTC day, for keys that cap it:
-- admission reserves against it like against the key's monthly budget, settlement charges it.
CREATE TABLE "app"."client_spend" (
	"publishable_key_id" uuid NOT NULL,
	"client" text NOT NULL,
	"day" date NOT NULL,
	"spent_nanos" bigint DEFAULT 0 NOT NULL,
	"reserved_nanos" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "client_spend_publishable_key_id_client_day_pk" PRIMARY KEY("publishable_key_id","client","day")
);--> statement-breakpoint
ALTER TABLE "app"."client_spend" ADD CONSTRAINT "client_spend_publishable_key_id_publishable_keys_id_fk" FOREIGN KEY ("publishable_key_id") REFERENCES "app"."publishable_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- A hold of a call whose key caps its client's daily spend names that client and day.
ALTER TABLE "app"."reservations" ADD COLUMN "client" text;--> statement-breakpoint
ALTER TABLE "app"."reservations" ADD COLUMN "client_day" date;--> statement-breakpoint
-- The client addresses the key's owner blocked: [{ id, client, createdAt }], refused at once by the gateway.
ALTER TABLE "app"."publishable_keys" ADD COLUMN "blocks" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
-- Counts the key's edits: admission checks the key was not edited since the caller read it.
ALTER TABLE "app"."publishable_keys" ADD COLUMN "version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- One rate window table for every subject: a key (its id) or one client address of a key ("<key id> <address>").
ALTER TABLE "app"."key_rate_windows" RENAME TO "rate_windows";--> statement-breakpoint
ALTER TABLE "app"."rate_windows" RENAME COLUMN "publishable_key_id" TO "subject";--> statement-breakpoint
ALTER INDEX IF EXISTS "app"."key_rate_windows_pkey" RENAME TO "rate_windows_pkey";--> statement-breakpoint
CREATE INDEX "rate_windows_start" ON "app"."rate_windows" USING btree ("window_start");
--> statement-breakpoint
-- Admission now checks that the key was not edited since the caller read it (its version) instead of comparing its origins.
-- It also takes the client whose daily spend the holds count against (settle_calls' result is unchanged).
DROP FUNCTION IF EXISTS "app"."admit_calls"(uuid, text, jsonb, timestamptz, date, uuid[], bigint[], timestamptz, bigint);

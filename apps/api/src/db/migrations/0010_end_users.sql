-- End users of a publishable key (issue #18): a key may require a token of the customer's sign-in
-- provider (its `sub` is the end user) and cap what each end user does: requests per minute,
-- dollars per UTC day and per UTC calendar month (null: no cap).
ALTER TABLE "app"."publishable_keys" ADD COLUMN "end_user_requests_per_minute" integer;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "end_user_spend_per_day_nanos" bigint;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "end_user_spend_per_month_nanos" bigint;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "end_user_tokens" jsonb;--> statement-breakpoint
-- One table for every allowance a caller has under a key (a client address's day, an end user's day
-- or month): client_spend becomes caller_spend, its rows named "<day> address <client>".
ALTER TABLE "app"."client_spend" RENAME TO "caller_spend";--> statement-breakpoint
ALTER TABLE "app"."caller_spend" ADD COLUMN "allowance" text;--> statement-breakpoint
ALTER TABLE "app"."caller_spend" ADD COLUMN "ends_on" date;--> statement-breakpoint
UPDATE "app"."caller_spend" SET "allowance" = "day"::text || ' address ' || "client", "ends_on" = "day";--> statement-breakpoint
ALTER TABLE "app"."caller_spend" DROP CONSTRAINT "client_spend_publishable_key_id_client_day_pk";--> statement-breakpoint
ALTER TABLE "app"."caller_spend" DROP COLUMN "client";--> statement-breakpoint
ALTER TABLE "app"."caller_spend" DROP COLUMN "day";--> statement-breakpoint
ALTER TABLE "app"."caller_spend" ALTER COLUMN "allowance" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."caller_spend" ALTER COLUMN "ends_on" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."caller_spend" ADD CONSTRAINT "caller_spend_publishable_key_id_allowance_pk" PRIMARY KEY("publishable_key_id","allowance");--> statement-breakpoint
ALTER TABLE "app"."caller_spend" RENAME CONSTRAINT "client_spend_publishable_key_id_publishable_keys_id_fk" TO "caller_spend_publishable_key_id_publishable_keys_id_fk";--> statement-breakpoint
-- A hold names the allowances it counts against.
ALTER TABLE "app"."reservations" ADD COLUMN "allowances" text[];--> statement-breakpoint
UPDATE "app"."reservations" SET "allowances" = ARRAY["client_day"::text || ' address ' || "client"] WHERE "client" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."reservations" DROP COLUMN "client";--> statement-breakpoint
ALTER TABLE "app"."reservations" DROP COLUMN "client_day";--> statement-breakpoint
-- A completion keeps its end user and its caller's network (IPv4 /24, IPv6 /48), never the full address.
ALTER TABLE "app"."chat_completions" ADD COLUMN "end_user" text;--> statement-breakpoint
ALTER TABLE "app"."chat_completions" ADD COLUMN "client_network" text;--> statement-breakpoint
-- Who called a key, hour by hour, for the last day's view of its callers; kept 48 hours.
CREATE TABLE "app"."caller_hours" (
	"publishable_key_id" uuid NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"kind" text NOT NULL,
	"caller" text NOT NULL,
	"calls" integer NOT NULL,
	"spent_nanos" bigint NOT NULL,
	CONSTRAINT "caller_hours_publishable_key_id_hour_kind_caller_pk" PRIMARY KEY("publishable_key_id","hour","kind","caller")
);--> statement-breakpoint
ALTER TABLE "app"."caller_hours" ADD CONSTRAINT "caller_hours_publishable_key_id_publishable_keys_id_fk" FOREIGN KEY ("publishable_key_id") REFERENCES "app"."publishable_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "caller_hours_hour" ON "app"."caller_hours" USING btree ("hour");--> statement-breakpoint
-- Admission takes the allowances the holds count against, instead of one client and its day.
DROP FUNCTION IF EXISTS "app"."admit_calls"(uuid, text, integer, timestamptz, date, uuid[], bigint[], timestamptz, bigint, text, date);

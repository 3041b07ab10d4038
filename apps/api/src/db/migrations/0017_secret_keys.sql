-- Secret keys (issue #23): keys for the account holder's servers, in the same table as publishable
-- keys so that metering (holds, spend, budgets, caps, usage rows) treats both alike. A secret key's
-- value is never stored: `value` (and `previous_value` after a roll) holds its keyed hash
-- (domain/keys/secret-key-hash.ts), which the gateway computes from the key presented and looks up
-- like a publishable key's value; `prefix` keeps its first characters for recognising it. A secret
-- key has a scope: `gateway` keys call /v1/chat/completions, `admin` keys the developer API
-- (/v1/organization/*). Publishable keys have neither scope nor prefix.
ALTER TABLE "app"."publishable_keys" ADD COLUMN "kind" text DEFAULT 'publishable' NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "scope" text;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "prefix" text;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD CONSTRAINT "publishable_keys_kind" CHECK (
	("app"."publishable_keys"."kind" = 'publishable' AND "app"."publishable_keys"."scope" IS NULL AND "app"."publishable_keys"."prefix" IS NULL)
	OR ("app"."publishable_keys"."kind" = 'secret' AND "app"."publishable_keys"."scope" IN ('gateway', 'admin') AND "app"."publishable_keys"."prefix" IS NOT NULL)
);--> statement-breakpoint
DROP INDEX "app"."publishable_keys_organization";--> statement-breakpoint
CREATE INDEX "publishable_keys_organization" ON "app"."publishable_keys" USING btree ("organization_id","kind","created_at");

-- Response caching (issue #24), off unless a key turns it on: for `response_cache_seconds` after a
-- non-streamed answer, the same request with the same key is answered from `response_cache`
-- without reaching a provider, charged nothing, and its row says `cache_hit`. An entry belongs to
-- one key of one organisation (both in its primary key), so no answer crosses organisations.
ALTER TABLE "app"."publishable_keys" ADD COLUMN "response_cache_seconds" integer;--> statement-breakpoint
ALTER TABLE "app"."chat_completions" ADD COLUMN "cache_hit" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE TABLE "app"."response_cache" (
	"organization_id" uuid NOT NULL,
	"publishable_key_id" uuid NOT NULL,
	"request_hash" text NOT NULL,
	"answer" json NOT NULL,
	"input_tokens" integer NOT NULL,
	"cached_input_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"provider" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "response_cache_organization_id_publishable_key_id_request_hash_pk" PRIMARY KEY("organization_id","publishable_key_id","request_hash")
);
--> statement-breakpoint
ALTER TABLE "app"."response_cache" ADD CONSTRAINT "response_cache_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."response_cache" ADD CONSTRAINT "response_cache_publishable_key_id_publishable_keys_id_fk" FOREIGN KEY ("publishable_key_id") REFERENCES "app"."publishable_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "response_cache_expiry" ON "app"."response_cache" USING btree ("expires_at");

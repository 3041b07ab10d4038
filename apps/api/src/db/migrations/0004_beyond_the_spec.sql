CREATE TABLE "app"."alert_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"publishable_key_id" uuid,
	"threshold" bigint NOT NULL,
	"period" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp (3) with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	CONSTRAINT "alert_deliveries_once" UNIQUE NULLS NOT DISTINCT("organization_id","kind","publishable_key_id","threshold","period")
);
--> statement-breakpoint
CREATE TABLE "app"."alert_settings" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"low_balance_nanos" bigint DEFAULT 5000000000 NOT NULL,
	"key_budget_percents" integer[] DEFAULT '{50,80,100}'::integer[] NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."usage_daily" (
	"organization_id" uuid NOT NULL,
	"day" date NOT NULL,
	"publishable_key_id" uuid NOT NULL,
	"model" text NOT NULL,
	"calls" bigint NOT NULL,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"cost_nanos" bigint NOT NULL,
	CONSTRAINT "usage_daily_organization_id_day_publishable_key_id_model_pk" PRIMARY KEY("organization_id","day","publishable_key_id","model")
);
--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "previous_value" text;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD COLUMN "previous_value_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "app"."alert_deliveries" ADD CONSTRAINT "alert_deliveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."alert_deliveries" ADD CONSTRAINT "alert_deliveries_publishable_key_id_publishable_keys_id_fk" FOREIGN KEY ("publishable_key_id") REFERENCES "app"."publishable_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."alert_settings" ADD CONSTRAINT "alert_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."usage_daily" ADD CONSTRAINT "usage_daily_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."usage_daily" ADD CONSTRAINT "usage_daily_publishable_key_id_publishable_keys_id_fk" FOREIGN KEY ("publishable_key_id") REFERENCES "app"."publishable_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_deliveries_unsent" ON "app"."alert_deliveries" USING btree ("created_at") WHERE "app"."alert_deliveries"."sent_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "publishable_keys_previous_value" ON "app"."publishable_keys" USING btree ("previous_value");--> statement-breakpoint
-- app.add_to_usage_daily and its trigger on chat_completions live in db/functions/add-to-usage-daily.sql, re-applied on every migrate.
INSERT INTO "app"."usage_daily" ("organization_id", "day", "publishable_key_id", "model", "calls", "input_tokens", "output_tokens", "cost_nanos")
	SELECT "organization_id", ("created_at" AT TIME ZONE 'UTC')::date, "publishable_key_id", "model",
		count(*), sum("input_tokens"), sum("output_tokens"), coalesce(sum("total_cost_nanos"), 0)
	FROM "app"."chat_completions"
	GROUP BY 1, 2, 3, 4;

-- Webhooks to the customer (issue #23). An organisation's endpoints (soft-deleted, so past
-- deliveries keep their endpoint) each with the events it wants and the secret its deliveries are
-- signed with; the secret is kept as given because signing needs it. Events are an outbox: an
-- event and its deliveries are inserted in the transaction of their cause (domain/webhooks/emit-event.ts),
-- and only when some live endpoint listens.
CREATE TABLE "app"."webhook_endpoints" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "app"."webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_endpoints_live" ON "app"."webhook_endpoints" USING btree ("organization_id","created_at") WHERE "app"."webhook_endpoints"."deleted_at" IS NULL;--> statement-breakpoint
CREATE TABLE "app"."webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."webhook_events" ADD CONSTRAINT "webhook_events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_events_organization" ON "app"."webhook_events" USING btree ("organization_id","created_at");--> statement-breakpoint
-- One event's delivery to one endpoint: pending until a 2xx answer (succeeded) or 24 hours after the
-- event (failed). A worker claims a due delivery by moving next_attempt_at past its lease and
-- bumping attempt_count (FOR UPDATE SKIP LOCKED), sends it outside any transaction, then records
-- the outcome only if attempt_count is still the one it claimed.
CREATE TABLE "app"."webhook_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_deliveries_once" UNIQUE("event_id","endpoint_id"),
	CONSTRAINT "webhook_deliveries_status" CHECK ("app"."webhook_deliveries"."status" IN ('pending', 'succeeded', 'failed')),
	CONSTRAINT "webhook_deliveries_pending_is_due" CHECK (("app"."webhook_deliveries"."status" = 'pending') = ("app"."webhook_deliveries"."next_attempt_at" IS NOT NULL))
);
--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_webhook_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "app"."webhook_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "app"."webhook_endpoints"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due" ON "app"."webhook_deliveries" USING btree ("next_attempt_at") WHERE "app"."webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint" ON "app"."webhook_deliveries" USING btree ("endpoint_id","created_at");--> statement-breakpoint
-- The latest few tries of each delivery (older ones are pruned when one is recorded).
CREATE TABLE "app"."webhook_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"delivery_id" uuid NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"status_code" integer,
	"error" text,
	"duration_ms" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "app"."webhook_deliveries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery" ON "app"."webhook_attempts" USING btree ("delivery_id","at");

-- The organisation in the keys of the webhook tables, payment_disputes, credit_grants and
-- alert_deliveries (docs/scaling.md, distribution.ts). A webhook delivery takes its event's
-- organisation and an attempt its delivery's, a dispute its top-up's; each table is then keyed by
-- (organization_id, id) ((organization_id, provider, id) for disputes), and each refers to its event,
-- endpoint, delivery or top-up with the organisation, so a row's parent is always its organisation's.
-- The once-only guarantees are as strong as before:
--   webhook_deliveries_once, (event_id, endpoint_id) before, is (organization_id, event_id,
--   endpoint_id): a delivery's organisation is its event's (the foreign key on both columns, to the
--   event's primary key), so an event and an endpoint can only ever meet under one organisation,
--   and the pair is still delivered once.
--   payment_disputes' key, (provider, id) before, is (organization_id, provider, id), the target of
--   top-up-reversals.ts' ON CONFLICT: a dispute is of one charge, whose top-up (found by its payment
--   intent, still unique) is one organisation's, so every notice of a dispute names the same
--   organisation and finds the same row; it is still recorded once and its status still only moves
--   forward. The credit it takes or gives back is made once by credit_entries_once_per_reference
--   (and payment_events), which this does not change.
--   credit_grants and alert_deliveries keep their once-only guarantees where they were:
--   credit_entries_once_per_reference (a grant's expiry entry) and alert_deliveries_once (already
--   (organization_id, kind, publishable_key_id, threshold, period)). Their ids stay random uuids.
-- checkout_sessions gains a unique (organization_id, id) for the disputes to refer to, beside its
-- primary key, which stays (id) until Stripe's events are found by organisation.
ALTER TABLE "app"."webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_webhook_events_id_fk";--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk";--> statement-breakpoint
ALTER TABLE "app"."webhook_attempts" DROP CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk";--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" DROP CONSTRAINT "payment_disputes_checkout_session_id_checkout_sessions_id_fk";--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" ADD COLUMN "organization_id" uuid;--> statement-breakpoint
UPDATE "app"."webhook_deliveries" AS d SET "organization_id" = e."organization_id" FROM "app"."webhook_events" AS e WHERE e."id" = d."event_id";--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" ALTER COLUMN "organization_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."webhook_attempts" ADD COLUMN "organization_id" uuid;--> statement-breakpoint
UPDATE "app"."webhook_attempts" AS a SET "organization_id" = d."organization_id" FROM "app"."webhook_deliveries" AS d WHERE d."id" = a."delivery_id";--> statement-breakpoint
ALTER TABLE "app"."webhook_attempts" ALTER COLUMN "organization_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" ADD COLUMN "organization_id" uuid;--> statement-breakpoint
UPDATE "app"."payment_disputes" AS p SET "organization_id" = s."organization_id" FROM "app"."checkout_sessions" AS s WHERE s."id" = p."checkout_session_id";--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" ALTER COLUMN "organization_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."webhook_attempts" ADD CONSTRAINT "webhook_attempts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" ADD CONSTRAINT "payment_disputes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_pkey";--> statement-breakpoint
ALTER TABLE "app"."webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
ALTER TABLE "app"."webhook_events" DROP CONSTRAINT "webhook_events_pkey";--> statement-breakpoint
ALTER TABLE "app"."webhook_events" ADD CONSTRAINT "webhook_events_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_pkey";--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_once";--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_once" UNIQUE("organization_id","event_id","endpoint_id");--> statement-breakpoint
ALTER TABLE "app"."webhook_attempts" DROP CONSTRAINT "webhook_attempts_pkey";--> statement-breakpoint
ALTER TABLE "app"."webhook_attempts" ADD CONSTRAINT "webhook_attempts_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" DROP CONSTRAINT "payment_disputes_provider_id_pk";--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" ADD CONSTRAINT "payment_disputes_organization_id_provider_id_pk" PRIMARY KEY("organization_id","provider","id");--> statement-breakpoint
ALTER TABLE "app"."credit_grants" DROP CONSTRAINT "credit_grants_pkey";--> statement-breakpoint
ALTER TABLE "app"."credit_grants" ADD CONSTRAINT "credit_grants_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
ALTER TABLE "app"."alert_deliveries" DROP CONSTRAINT "alert_deliveries_pkey";--> statement-breakpoint
ALTER TABLE "app"."alert_deliveries" ADD CONSTRAINT "alert_deliveries_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_sessions_organization_key" ON "app"."checkout_sessions" USING btree ("organization_id","id");--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_fk" FOREIGN KEY ("organization_id","event_id") REFERENCES "app"."webhook_events"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_fk" FOREIGN KEY ("organization_id","endpoint_id") REFERENCES "app"."webhook_endpoints"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_fk" FOREIGN KEY ("organization_id","delivery_id") REFERENCES "app"."webhook_deliveries"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" ADD CONSTRAINT "payment_disputes_checkout_session_fk" FOREIGN KEY ("organization_id","checkout_session_id") REFERENCES "app"."checkout_sessions"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
DROP INDEX "app"."webhook_deliveries_endpoint";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint" ON "app"."webhook_deliveries" USING btree ("organization_id","endpoint_id","created_at");--> statement-breakpoint
DROP INDEX "app"."webhook_attempts_delivery";--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery" ON "app"."webhook_attempts" USING btree ("organization_id","delivery_id","at");--> statement-breakpoint
DROP INDEX "app"."payment_disputes_checkout_session";--> statement-breakpoint
CREATE INDEX "payment_disputes_checkout_session" ON "app"."payment_disputes" USING btree ("organization_id","checkout_session_id");

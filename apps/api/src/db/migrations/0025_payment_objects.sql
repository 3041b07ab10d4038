-- The organisation in the keys of checkout_sessions and auto_top_up_charges (docs/scaling.md,
-- distribution.ts): each is keyed by (organization_id, id) (checkout_sessions' unique
-- (organization_id, id) from 0022 becomes its primary key, which payment_disputes refers to), and a
-- payment intent is unique within its organisation, (organization_id, payment_intent_id). Every
-- statement that finds these rows names the organisation: Stripe's checkout events take it from the
-- session's metadata and an auto top-up's payment intent events from the intent's, and the row found
-- must be that organisation's (a mismatched one finds nothing and is ignored, as an unknown session
-- is). A refund or dispute names only the charge's payment intent, so a new reference table,
-- payment_objects ((provider, id) → organization_id), serves as the directory of payment intents:
-- written in the transaction that records a payment intent on a top-up or an auto top-up charge,
-- and backfilled here from both.
-- The once-only guarantees are as strong as before:
--   a checkout session's or charge's id is issued once (Stripe's cs_… and our random uuids), so
--   (organization_id, id) names the one row id named; the transitions that credit
--   (markSucceeded, markChargeSucceeded) still move a row out of its unpaid states once, in the
--   transaction that posts the credit, and credit_entries_once_per_reference (organization_id, kind,
--   reference) and payment_events (reference, unchanged) still make the entry and the event once.
--   A payment intent was unique in each table; it is now unique for all of them in payment_objects'
--   primary key (provider, id), written in the same transaction as the intent, which refuses the
--   intent for a second organisation, so within its organisation (the new unique indexes) it is
--   still one top-up's or one charge's. Every notice of a charge therefore finds the same top-up
--   under the same organisation, and a refund or dispute is still reversed once (payment_events,
--   payment_disputes' (organization_id, provider, id), credit_entries_once_per_reference).
ALTER TABLE "app"."payment_disputes" DROP CONSTRAINT "payment_disputes_checkout_session_fk";--> statement-breakpoint
ALTER TABLE "app"."checkout_sessions" DROP CONSTRAINT "checkout_sessions_pkey";--> statement-breakpoint
DROP INDEX "app"."checkout_sessions_organization_key";--> statement-breakpoint
ALTER TABLE "app"."checkout_sessions" ADD CONSTRAINT "checkout_sessions_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" ADD CONSTRAINT "payment_disputes_checkout_session_fk" FOREIGN KEY ("organization_id","checkout_session_id") REFERENCES "app"."checkout_sessions"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
DROP INDEX "app"."checkout_sessions_payment_intent";--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_sessions_payment_intent" ON "app"."checkout_sessions" USING btree ("organization_id","payment_intent_id") WHERE "app"."checkout_sessions"."payment_intent_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."auto_top_up_charges" DROP CONSTRAINT "auto_top_up_charges_pkey";--> statement-breakpoint
ALTER TABLE "app"."auto_top_up_charges" ADD CONSTRAINT "auto_top_up_charges_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
DROP INDEX "app"."auto_top_up_charges_payment_intent";--> statement-breakpoint
CREATE UNIQUE INDEX "auto_top_up_charges_payment_intent" ON "app"."auto_top_up_charges" USING btree ("organization_id","payment_intent_id") WHERE "app"."auto_top_up_charges"."payment_intent_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE "app"."payment_objects" (
	"provider" text NOT NULL,
	"id" text NOT NULL,
	"organization_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_objects_provider_id_pk" PRIMARY KEY("provider","id")
);--> statement-breakpoint
ALTER TABLE "app"."payment_objects" ADD CONSTRAINT "payment_objects_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- A payment intent recorded under two organisations (never, by the old unique indexes and Stripe's
-- ids, but for one on both a top-up and a charge) stops the migration here rather than guessing.
INSERT INTO "app"."payment_objects" ("provider", "id", "organization_id")
	SELECT "provider", "payment_intent_id", "organization_id" FROM "app"."checkout_sessions" WHERE "payment_intent_id" IS NOT NULL
	UNION
	SELECT "provider", "payment_intent_id", "organization_id" FROM "app"."auto_top_up_charges" WHERE "payment_intent_id" IS NOT NULL;

-- Refunds and disputes reach the ledger (issue #19). What a refund or dispute takes back and the
-- credit cannot pay is owed: each ledger entry also records its change to the debt, and the
-- balance row keeps the debt's sum beside the balance's. An organisation that owes has no credit
-- (admission refuses it) until a top-up pays the debt first.
ALTER TABLE "app"."credit_entries" ADD COLUMN "owed_nanos" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."credit_balances" ADD COLUMN "owed_nanos" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."credit_balances" ADD CONSTRAINT "credit_balances_owed_not_negative" CHECK ("app"."credit_balances"."owed_nanos" >= 0);--> statement-breakpoint
ALTER TABLE "app"."credit_balances" ADD CONSTRAINT "credit_balances_owing_has_no_credit" CHECK ("app"."credit_balances"."owed_nanos" = 0 OR "app"."credit_balances"."balance_nanos" = 0);--> statement-breakpoint
-- A top-up's payment as the provider reports it: the payment (Stripe's payment_intent) that finds
-- it from a charge, what was charged (credit and tax) and the cumulative amount refunded of it.
ALTER TABLE "app"."checkout_sessions" ADD COLUMN "payment_intent_id" text;--> statement-breakpoint
ALTER TABLE "app"."checkout_sessions" ADD COLUMN "charged_nanos" bigint;--> statement-breakpoint
ALTER TABLE "app"."checkout_sessions" ADD COLUMN "refunded_nanos" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_sessions_payment_intent" ON "app"."checkout_sessions" USING btree ("payment_intent_id") WHERE "app"."checkout_sessions"."payment_intent_id" IS NOT NULL;--> statement-breakpoint
-- A dispute of a top-up's payment: open (its amount taken back), won (given back) or lost.
CREATE TABLE "app"."payment_disputes" (
	"provider" text NOT NULL,
	"id" text NOT NULL,
	"checkout_session_id" text NOT NULL,
	"amount_nanos" bigint NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_disputes_provider_id_pk" PRIMARY KEY("provider","id")
);
--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" ADD CONSTRAINT "payment_disputes_checkout_session_id_checkout_sessions_id_fk" FOREIGN KEY ("checkout_session_id") REFERENCES "app"."checkout_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payment_disputes_checkout_session" ON "app"."payment_disputes" USING btree ("checkout_session_id");

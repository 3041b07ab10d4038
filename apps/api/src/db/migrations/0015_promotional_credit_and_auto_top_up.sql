-- Promotional credit (issue #22): an operator's grant of credit that expires. The ledger stays the
-- one source of the balance (a grant is a `grant` entry, what is left of it at expiry leaves by a
-- `grant_expiry` entry); each grant keeps what remains of it, and the balance row keeps their sum
-- (promotional_nanos), which is never more than the balance: usage draws on grants first, soonest
-- expiry first (settle_calls), every other debit on paid credit first (ledger.ts). Every change to
-- an organisation's grants happens under its balance row's lock.
CREATE TABLE "app"."credit_grants" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"amount_nanos" bigint NOT NULL,
	"remaining_nanos" bigint NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"note" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_grants_amount_positive" CHECK ("app"."credit_grants"."amount_nanos" > 0),
	CONSTRAINT "credit_grants_remaining_within_amount" CHECK ("app"."credit_grants"."remaining_nanos" >= 0 AND "app"."credit_grants"."remaining_nanos" <= "app"."credit_grants"."amount_nanos")
);
--> statement-breakpoint
ALTER TABLE "app"."credit_grants" ADD CONSTRAINT "credit_grants_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_grants_drawing_order" ON "app"."credit_grants" USING btree ("organization_id","expires_at","id") WHERE "app"."credit_grants"."remaining_nanos" > 0;--> statement-breakpoint
CREATE INDEX "credit_grants_expiring" ON "app"."credit_grants" USING btree ("expires_at") WHERE "app"."credit_grants"."remaining_nanos" > 0;--> statement-breakpoint
ALTER TABLE "app"."credit_balances" ADD COLUMN "promotional_nanos" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."credit_balances" ADD CONSTRAINT "credit_balances_promotional_within_balance" CHECK ("app"."credit_balances"."promotional_nanos" >= 0 AND "app"."credit_balances"."promotional_nanos" <= "app"."credit_balances"."balance_nanos");--> statement-breakpoint
-- Auto top-up (issue #22): a saved card charged when a settlement leaves the balance below the
-- threshold. The balance row carries the armed threshold (null: disarmed or off), so settlement
-- sees a crossing without another lookup; it disarms it in the same update and claims one charge
-- (claim_auto_top_up), and only credit that lifts the balance to the threshold again re-arms it.
CREATE TABLE "app"."auto_top_ups" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"threshold_nanos" bigint NOT NULL,
	"top_up_nanos" bigint NOT NULL,
	"monthly_cap_nanos" bigint NOT NULL,
	"provider" text,
	"payment_method_id" text,
	"card_brand" text,
	"card_last4" text,
	"disabled_reason" text,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."auto_top_ups" ADD CONSTRAINT "auto_top_ups_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."credit_balances" ADD COLUMN "auto_top_up_below_nanos" bigint;--> statement-breakpoint
-- One row per charge: pending (claimed by a crossing), processing (sent to the provider),
-- succeeded (credited by an `auto_top_up` ledger entry referencing it) or failed (auto top-up
-- turned off; failure_mailed_at once the people were told).
CREATE TABLE "app"."auto_top_up_charges" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"amount_nanos" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"payment_intent_id" text,
	"failure_message" text,
	"failure_mailed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."auto_top_up_charges" ADD CONSTRAINT "auto_top_up_charges_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auto_top_up_charges_organization" ON "app"."auto_top_up_charges" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "auto_top_up_charges_open" ON "app"."auto_top_up_charges" USING btree ("status","updated_at") WHERE "app"."auto_top_up_charges"."status" IN ('pending', 'processing');--> statement-breakpoint
CREATE INDEX "auto_top_up_charges_unmailed" ON "app"."auto_top_up_charges" USING btree ("updated_at") WHERE "app"."auto_top_up_charges"."status" = 'failed' AND "app"."auto_top_up_charges"."failure_mailed_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "auto_top_up_charges_payment_intent" ON "app"."auto_top_up_charges" USING btree ("payment_intent_id") WHERE "app"."auto_top_up_charges"."payment_intent_id" IS NOT NULL;--> statement-breakpoint
-- A checkout session either buys credit (payment) or saves a card for auto top-up (setup).
ALTER TABLE "app"."checkout_sessions" ADD COLUMN "mode" text DEFAULT 'payment' NOT NULL;

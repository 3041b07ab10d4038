-- Issue #52: a refund or dispute of an auto top-up's charge takes its credit back, as one of a
-- checkout top-up's does (domain/payments/payment-reversals.ts). The charge keeps Stripe's
-- cumulative refund beside its amount (an auto top-up has no tax: what was charged is the credit),
-- and a dispute names the payment it is of: a checkout top-up or an auto top-up charge, exactly one.
ALTER TABLE "app"."auto_top_up_charges" ADD COLUMN "refunded_nanos" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" ALTER COLUMN "checkout_session_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" ADD COLUMN "auto_top_up_charge_id" uuid;--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" ADD CONSTRAINT "payment_disputes_auto_top_up_charge_fk" FOREIGN KEY ("organization_id","auto_top_up_charge_id") REFERENCES "app"."auto_top_up_charges"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."payment_disputes" ADD CONSTRAINT "payment_disputes_of_one_payment" CHECK (num_nonnulls("checkout_session_id", "auto_top_up_charge_id") = 1);--> statement-breakpoint
CREATE INDEX "payment_disputes_auto_top_up_charge" ON "app"."payment_disputes" USING btree ("organization_id","auto_top_up_charge_id") WHERE "auto_top_up_charge_id" IS NOT NULL;

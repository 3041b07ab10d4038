-- Receipts (issue #22): the provider's receipt of a paid top-up or auto top-up charge, where it
-- gives one (Stripe's charge receipt_url, read when the payment is confirmed); null otherwise.
ALTER TABLE "app"."checkout_sessions" ADD COLUMN "receipt_url" text;--> statement-breakpoint
ALTER TABLE "app"."auto_top_up_charges" ADD COLUMN "receipt_url" text;

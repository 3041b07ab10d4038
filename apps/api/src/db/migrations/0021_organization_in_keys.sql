-- The organisation in the keys that Citus would need it in (docs/scaling.md, distribution.ts):
-- a gateway row's key is its organisation's (a foreign key on both columns, to a unique
-- (organization_id, id) of publishable_keys); a completion, a ledger entry and an audit entry are
-- keyed within their organisation; a ledger entry is made once per organisation, kind and reference
-- (every reference is one organisation's, so still once).
CREATE UNIQUE INDEX "publishable_keys_organization_key" ON "app"."publishable_keys" USING btree ("organization_id","id");--> statement-breakpoint
ALTER TABLE "app"."chat_completions" DROP CONSTRAINT "chat_completions_publishable_key_id_publishable_keys_id_fk";--> statement-breakpoint
ALTER TABLE "app"."chat_completions" ADD CONSTRAINT "chat_completions_publishable_key_fk" FOREIGN KEY ("organization_id","publishable_key_id") REFERENCES "app"."publishable_keys"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."reservations" DROP CONSTRAINT "reservations_publishable_key_id_publishable_keys_id_fk";--> statement-breakpoint
ALTER TABLE "app"."reservations" ADD CONSTRAINT "reservations_publishable_key_fk" FOREIGN KEY ("organization_id","publishable_key_id") REFERENCES "app"."publishable_keys"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."response_cache" DROP CONSTRAINT "response_cache_publishable_key_id_publishable_keys_id_fk";--> statement-breakpoint
ALTER TABLE "app"."response_cache" ADD CONSTRAINT "response_cache_publishable_key_fk" FOREIGN KEY ("organization_id","publishable_key_id") REFERENCES "app"."publishable_keys"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."usage_daily" DROP CONSTRAINT "usage_daily_publishable_key_id_publishable_keys_id_fk";--> statement-breakpoint
ALTER TABLE "app"."usage_daily" ADD CONSTRAINT "usage_daily_publishable_key_fk" FOREIGN KEY ("organization_id","publishable_key_id") REFERENCES "app"."publishable_keys"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."alert_deliveries" DROP CONSTRAINT "alert_deliveries_publishable_key_id_publishable_keys_id_fk";--> statement-breakpoint
ALTER TABLE "app"."alert_deliveries" ADD CONSTRAINT "alert_deliveries_publishable_key_fk" FOREIGN KEY ("organization_id","publishable_key_id") REFERENCES "app"."publishable_keys"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."chat_completions" DROP CONSTRAINT "chat_completions_pkey";--> statement-breakpoint
ALTER TABLE "app"."chat_completions" ADD CONSTRAINT "chat_completions_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
ALTER TABLE "app"."credit_entries" DROP CONSTRAINT "credit_entries_pkey";--> statement-breakpoint
ALTER TABLE "app"."credit_entries" ADD CONSTRAINT "credit_entries_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
DROP INDEX "app"."credit_entries_once_per_reference";--> statement-breakpoint
CREATE UNIQUE INDEX "credit_entries_once_per_reference" ON "app"."credit_entries" USING btree ("organization_id","kind","reference");--> statement-breakpoint
ALTER TABLE "app"."audit_entries" DROP CONSTRAINT "audit_entries_pkey";--> statement-breakpoint
ALTER TABLE "app"."audit_entries" ADD CONSTRAINT "audit_entries_organization_id_id_pk" PRIMARY KEY("organization_id","id");

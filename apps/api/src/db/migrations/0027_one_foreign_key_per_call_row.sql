-- Rows that belong to a publishable key keep one foreign key, to the key with its organisation
-- (schema/key-owner-columns.ts). The key's row refers to the organisation, so these foreign keys
-- to organizations checked nothing more, and each completion and hold written paid for the check
-- (a share lock on the organisation's row, the same row for all of its calls).
ALTER TABLE "app"."chat_completions" DROP CONSTRAINT "chat_completions_organization_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "app"."reservations" DROP CONSTRAINT "reservations_organization_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "app"."key_spend" DROP CONSTRAINT "key_spend_organization_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "app"."caller_spend" DROP CONSTRAINT "caller_spend_organization_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "app"."caller_hours" DROP CONSTRAINT "caller_hours_organization_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "app"."response_cache" DROP CONSTRAINT "response_cache_organization_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "app"."usage_daily" DROP CONSTRAINT "usage_daily_organization_id_organizations_id_fk";

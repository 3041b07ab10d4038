-- The organisation in the keys of the metering tables and of publishable_keys and reservations
-- (docs/scaling.md, distribution.ts), so every row admission and settlement lock lives on its
-- organisation's shard.
--   key_spend, caller_spend and caller_hours gain organization_id, their key's, and lead their
--   primary keys with it: (organization_id, publishable_key_id, period_start), (organization_id,
--   publishable_key_id, allowance), (organization_id, publishable_key_id, hour, kind, caller). A key
--   belongs to one organisation for good (the foreign key on both columns, to the key's primary key),
--   so each key's month, allowance and hour is still exactly one row: a budget and an allowance are
--   still held and spent on one row each, and admission's ON CONFLICT still finds it.
--   rate_windows gains organization_id (the key's, read from the key id its subject starts with; a
--   window no key names counts for nothing) and is keyed by (organization_id, subject): a subject
--   names its key, so it is still one window.
--   publishable_keys' primary key becomes (organization_id, id): the unique index every gateway
--   row's foreign key already refers to becomes the primary key (those foreign keys stay on it), and
--   key ids stay random uuids, so an id alone still names one key.
--   reservations' primary key becomes (organization_id, id); a hold's id is a random uuid.
-- app.admit_calls takes the organisation (admit-calls.sql): its old signature goes.
DROP FUNCTION IF EXISTS "app"."admit_calls"(uuid, text, integer, timestamptz, date, uuid[], bigint[], timestamptz, bigint, text[], bigint[], date[]);--> statement-breakpoint
ALTER TABLE "app"."key_spend" DROP CONSTRAINT "key_spend_publishable_key_id_publishable_keys_id_fk";--> statement-breakpoint
ALTER TABLE "app"."caller_spend" DROP CONSTRAINT "caller_spend_publishable_key_id_publishable_keys_id_fk";--> statement-breakpoint
ALTER TABLE "app"."caller_hours" DROP CONSTRAINT "caller_hours_publishable_key_id_publishable_keys_id_fk";--> statement-breakpoint
ALTER TABLE "app"."key_spend" ADD COLUMN "organization_id" uuid;--> statement-breakpoint
UPDATE "app"."key_spend" AS s SET "organization_id" = k."organization_id" FROM "app"."publishable_keys" AS k WHERE k."id" = s."publishable_key_id";--> statement-breakpoint
ALTER TABLE "app"."key_spend" ALTER COLUMN "organization_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."caller_spend" ADD COLUMN "organization_id" uuid;--> statement-breakpoint
UPDATE "app"."caller_spend" AS c SET "organization_id" = k."organization_id" FROM "app"."publishable_keys" AS k WHERE k."id" = c."publishable_key_id";--> statement-breakpoint
ALTER TABLE "app"."caller_spend" ALTER COLUMN "organization_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."caller_hours" ADD COLUMN "organization_id" uuid;--> statement-breakpoint
UPDATE "app"."caller_hours" AS h SET "organization_id" = k."organization_id" FROM "app"."publishable_keys" AS k WHERE k."id" = h."publishable_key_id";--> statement-breakpoint
ALTER TABLE "app"."caller_hours" ALTER COLUMN "organization_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."rate_windows" ADD COLUMN "organization_id" uuid;--> statement-breakpoint
UPDATE "app"."rate_windows" AS w SET "organization_id" = k."organization_id" FROM "app"."publishable_keys" AS k
	WHERE k."id"::text = split_part(regexp_replace(w."subject", '^developer-api ', ''), ' ', 1);--> statement-breakpoint
DELETE FROM "app"."rate_windows" WHERE "organization_id" IS NULL;--> statement-breakpoint
ALTER TABLE "app"."rate_windows" ALTER COLUMN "organization_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "app"."key_spend" ADD CONSTRAINT "key_spend_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."caller_spend" ADD CONSTRAINT "caller_spend_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."caller_hours" ADD CONSTRAINT "caller_hours_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" DROP CONSTRAINT "publishable_keys_pkey";--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD CONSTRAINT "publishable_keys_organization_id_id_pk" PRIMARY KEY USING INDEX "publishable_keys_organization_key";--> statement-breakpoint
ALTER TABLE "app"."key_spend" DROP CONSTRAINT "key_spend_publishable_key_id_period_start_pk";--> statement-breakpoint
ALTER TABLE "app"."key_spend" ADD CONSTRAINT "key_spend_organization_id_publishable_key_id_period_start_pk" PRIMARY KEY("organization_id","publishable_key_id","period_start");--> statement-breakpoint
ALTER TABLE "app"."caller_spend" DROP CONSTRAINT "caller_spend_publishable_key_id_allowance_pk";--> statement-breakpoint
ALTER TABLE "app"."caller_spend" ADD CONSTRAINT "caller_spend_organization_id_publishable_key_id_allowance_pk" PRIMARY KEY("organization_id","publishable_key_id","allowance");--> statement-breakpoint
ALTER TABLE "app"."caller_hours" DROP CONSTRAINT "caller_hours_publishable_key_id_hour_kind_caller_pk";--> statement-breakpoint
ALTER TABLE "app"."caller_hours" ADD CONSTRAINT "caller_hours_organization_id_publishable_key_id_hour_kind_caller_pk" PRIMARY KEY("organization_id","publishable_key_id","hour","kind","caller");--> statement-breakpoint
ALTER TABLE "app"."rate_windows" DROP CONSTRAINT "rate_windows_pkey";--> statement-breakpoint
ALTER TABLE "app"."rate_windows" ADD CONSTRAINT "rate_windows_organization_id_subject_pk" PRIMARY KEY("organization_id","subject");--> statement-breakpoint
ALTER TABLE "app"."reservations" DROP CONSTRAINT "reservations_pkey";--> statement-breakpoint
ALTER TABLE "app"."reservations" ADD CONSTRAINT "reservations_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
ALTER TABLE "app"."key_spend" ADD CONSTRAINT "key_spend_publishable_key_fk" FOREIGN KEY ("organization_id","publishable_key_id") REFERENCES "app"."publishable_keys"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."caller_spend" ADD CONSTRAINT "caller_spend_publishable_key_fk" FOREIGN KEY ("organization_id","publishable_key_id") REFERENCES "app"."publishable_keys"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."caller_hours" ADD CONSTRAINT "caller_hours_publishable_key_fk" FOREIGN KEY ("organization_id","publishable_key_id") REFERENCES "app"."publishable_keys"("organization_id","id") ON DELETE no action ON UPDATE no action;

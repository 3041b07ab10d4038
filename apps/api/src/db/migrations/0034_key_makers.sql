-- Issue #53: a key never does more than the person who holds its value. Each key records who made it
-- (or last rolled it, and so was shown its value); an admin key whose maker is no longer an owner or
-- admin of the organisation stops opening the developer API, and a removed member's keys are listed
-- with their maker. Keys made before this column are credited, where the audit log says so, to the
-- person who last created or rolled a key of that name in the organisation.
ALTER TABLE "app"."publishable_keys" ADD COLUMN "made_by_person_id" uuid;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD CONSTRAINT "publishable_keys_made_by_person_id_persons_id_fk" FOREIGN KEY ("made_by_person_id") REFERENCES "app"."persons"("id");--> statement-breakpoint
UPDATE "app"."publishable_keys" k SET "made_by_person_id" = (
  SELECT a."actor_person_id" FROM "app"."audit_entries" a
  WHERE a."organization_id" = k."organization_id" AND a."target" = k."name"
    AND a."action" IN ('key.created', 'key.rolled') AND a."actor_person_id" IS NOT NULL
  ORDER BY a."created_at" DESC LIMIT 1
);

-- The key_values directory (schema/key-values.ts, docs/scaling.md): every value a key ever had,
-- and whose key it is. The gateway finds a key through it (find-key.ts) and it keeps values unique
-- across organisations, so publishable_keys needs no index on its values: on Citus it is a
-- reference table, publishable_keys distributed by organisation. Filled here with every key's value
-- and previous value; from now on app.record_key_values (functions/key-values.sql) records them as
-- keys are created and rolled. Values were unique (the two indexes dropped here, and a roll's
-- previous value is its key's own earlier one), so each lands once.
CREATE TABLE "app"."key_values" (
	"value" text PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"publishable_key_id" uuid NOT NULL
);--> statement-breakpoint
INSERT INTO "app"."key_values" ("value", "organization_id", "publishable_key_id")
	SELECT "value", "organization_id", "id" FROM "app"."publishable_keys"
	UNION
	SELECT "previous_value", "organization_id", "id" FROM "app"."publishable_keys" WHERE "previous_value" IS NOT NULL;--> statement-breakpoint
DROP INDEX "app"."publishable_keys_value";--> statement-breakpoint
DROP INDEX "app"."publishable_keys_previous_value";

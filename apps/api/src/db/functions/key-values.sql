-- The key_values directory (schema/key-values.ts) follows publishable_keys: a key's value, and its
-- previous value after a roll (always one of its own earlier values), are recorded as the key's
-- when it is created and when they change. A value already another key's is refused as the unique
-- index on publishable_keys.value refused it before the directory (23505, naming key_values_pkey).
CREATE OR REPLACE FUNCTION "app"."record_key_values"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "app"."key_values" ("value", "organization_id", "publishable_key_id")
		SELECT v, NEW."organization_id", NEW."id" FROM unnest(ARRAY[NEW."value", NEW."previous_value"]) AS v WHERE v IS NOT NULL
		ON CONFLICT ("value") DO NOTHING;
	IF EXISTS (
		SELECT FROM "app"."key_values" AS d
		WHERE d."value" IN (NEW."value", NEW."previous_value") AND (d."organization_id", d."publishable_key_id") <> (NEW."organization_id", NEW."id")
	) THEN
		RAISE EXCEPTION 'duplicate key value violates unique constraint "key_values_pkey"'
			USING ERRCODE = 'unique_violation', CONSTRAINT = 'key_values_pkey', TABLE = 'key_values', SCHEMA = 'app';
	END IF;
	RETURN NEW;
END;
$$;
CREATE OR REPLACE TRIGGER "publishable_keys_record_values"
	AFTER INSERT OR UPDATE OF "value", "previous_value" ON "app"."publishable_keys"
	FOR EACH ROW EXECUTE FUNCTION "app"."record_key_values"();

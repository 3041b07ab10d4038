-- usage_daily follows chat_completions: one upsert per inserting statement (a settled batch is one
-- statement), in the same transaction, summed per UTC day, key and model. Rows are taken in a fixed
-- order so two transactions adding to the same days never deadlock. Completions are never deleted,
-- and their tokens and costs never change, so inserts are all it needs to follow.
CREATE OR REPLACE FUNCTION "app"."add_to_usage_daily"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "app"."usage_daily" AS u ("organization_id", "day", "publishable_key_id", "model", "calls", "input_tokens", "output_tokens", "cost_nanos")
		SELECT "organization_id", ("created_at" AT TIME ZONE 'UTC')::date, "publishable_key_id", "model",
			count(*), sum("input_tokens"), sum("output_tokens"), coalesce(sum("total_cost_nanos"), 0)
		FROM inserted
		GROUP BY 1, 2, 3, 4
		ORDER BY 1, 2, 3, 4
	ON CONFLICT ("organization_id", "day", "publishable_key_id", "model") DO UPDATE SET
		"calls" = u."calls" + excluded."calls",
		"input_tokens" = u."input_tokens" + excluded."input_tokens",
		"output_tokens" = u."output_tokens" + excluded."output_tokens",
		"cost_nanos" = u."cost_nanos" + excluded."cost_nanos";
	RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER "chat_completions_add_to_usage_daily"
	AFTER INSERT ON "app"."chat_completions"
	REFERENCING NEW TABLE AS inserted
	FOR EACH STATEMENT EXECUTE FUNCTION "app"."add_to_usage_daily"();

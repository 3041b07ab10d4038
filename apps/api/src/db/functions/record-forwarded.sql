-- The record that calls reached their provider (domain/metering/forwarded.ts): on each call's hold,
-- the row app.settle_calls would write for all that was reserved, which the sweeper charges if the
-- call is never settled. One update per hold, each by its primary key: as one statement joined to
-- the batch, the planner read every hold of the table instead (it did, on a table never analysed,
-- whose pages hold the dead versions of settled holds until vacuum reaches them).
CREATE OR REPLACE FUNCTION "app"."record_forwarded"(p_organization_ids uuid[], p_ids uuid[], p_rows jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
		UPDATE "app"."reservations" SET "forwarded" = p_rows -> (i - 1)
			WHERE "organization_id" = p_organization_ids[i] AND "id" = p_ids[i];
	END LOOP;
END;
$$;

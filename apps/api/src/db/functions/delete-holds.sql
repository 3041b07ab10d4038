-- The holds named (organisation and id, pairwise), deleted, and those that were still there
-- returned: what app.settle_calls and app.release_holds give back. One delete per hold, each by its
-- primary key: joined to the list in one statement (`USING unnest(…)` or `id = ANY(…)`), the planner
-- may read every hold of the table or of the organisation for each, dead ones included until vacuum
-- reaches them (it did, on a table never analysed). A hold already gone (settled, released or swept,
-- possibly by a transaction this one waited for) is skipped.
CREATE OR REPLACE FUNCTION "app"."delete_holds"(p_organization_ids uuid[], p_ids uuid[]) RETURNS SETOF "app"."reservations" LANGUAGE plpgsql AS $$
DECLARE
	hold "app"."reservations";
BEGIN
	FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
		DELETE FROM "app"."reservations" AS r WHERE r."organization_id" = p_organization_ids[i] AND r."id" = p_ids[i]
			RETURNING r.* INTO hold;
		IF FOUND THEN
			RETURN NEXT hold;
		END IF;
	END LOOP;
END;
$$;

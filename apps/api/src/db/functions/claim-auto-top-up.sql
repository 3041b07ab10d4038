-- One auto top-up charge, if one is due (auto_top_up_state). The caller holds the organisation's
-- balance row lock (a settlement, a settings save, a worker's sweep), so however many of them run
-- on any instance, at most one charge is open at a time. Returns the pending charge's id, or null.
CREATE OR REPLACE FUNCTION "app"."claim_auto_top_up"(p_organization_id uuid, p_now timestamptz) RETURNS uuid LANGUAGE sql AS $$
	INSERT INTO "app"."auto_top_up_charges" ("id", "organization_id", "provider", "amount_nanos", "status", "created_at", "updated_at")
		SELECT gen_random_uuid(), a."organization_id", a."provider", a."top_up_nanos", 'pending', p_now, p_now
		FROM "app"."auto_top_ups" AS a
		WHERE a."organization_id" = p_organization_id AND "app"."auto_top_up_state"(p_organization_id, p_now) = 'due'
	RETURNING "id";
$$;

-- One auto top-up charge for a crossing of the threshold (issue #22): the caller holds the
-- organisation's balance row lock and has just disarmed it, so concurrent settlements on any
-- instance claim at most one charge per crossing. Nothing is claimed when auto top-up is off, has
-- no saved card, or the charge would take the month's charges (pending, processing or succeeded,
-- by UTC calendar month) past the monthly cap. Returns the pending charge's id, or null.
CREATE OR REPLACE FUNCTION "app"."claim_auto_top_up"(p_organization_id uuid, p_now timestamptz) RETURNS uuid LANGUAGE sql AS $$
	INSERT INTO "app"."auto_top_up_charges" ("id", "organization_id", "provider", "amount_nanos", "status", "created_at", "updated_at")
		SELECT gen_random_uuid(), a."organization_id", a."provider", a."top_up_nanos", 'pending', p_now, p_now
		FROM "app"."auto_top_ups" AS a
		WHERE a."organization_id" = p_organization_id AND a."enabled" AND a."payment_method_id" IS NOT NULL
			AND a."top_up_nanos" + (
				SELECT coalesce(sum(c."amount_nanos"), 0) FROM "app"."auto_top_up_charges" AS c
				WHERE c."organization_id" = p_organization_id AND c."status" <> 'failed'
					AND c."created_at" >= date_trunc('month', p_now AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
			) <= a."monthly_cap_nanos"
	RETURNING "id";
$$;

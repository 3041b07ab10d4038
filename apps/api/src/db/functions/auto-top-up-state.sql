-- Where an organisation's auto top-up stands (issue #52: it is level-triggered). A charge is due
-- whenever auto top-up is on with a saved card, the balance is below the threshold, no charge is
-- open (pending or processing), and one more would not take the month's charges (pending,
-- processing or succeeded, by UTC calendar month) past the monthly cap. The one place this rule
-- lives: claim_auto_top_up claims when it says 'due', the workers' sweep looks for 'due', and the
-- console is told when the cap holds a due charge back ('monthly_cap').
CREATE OR REPLACE FUNCTION "app"."auto_top_up_state"(p_organization_id uuid, p_now timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT CASE
		WHEN a."organization_id" IS NULL OR NOT a."enabled" THEN 'off'
		WHEN a."payment_method_id" IS NULL THEN 'no_card'
		WHEN coalesce(b."balance_nanos", 0) >= a."threshold_nanos" THEN 'above_threshold'
		WHEN EXISTS (
			SELECT 1 FROM "app"."auto_top_up_charges" AS c
			WHERE c."organization_id" = p_organization_id AND c."status" IN ('pending', 'processing')
		) THEN 'charging'
		WHEN a."top_up_nanos" + (
			SELECT coalesce(sum(c."amount_nanos"), 0) FROM "app"."auto_top_up_charges" AS c
			WHERE c."organization_id" = p_organization_id AND c."status" <> 'failed'
				AND c."created_at" >= date_trunc('month', p_now AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
		) > a."monthly_cap_nanos" THEN 'monthly_cap'
		ELSE 'due'
	END
	FROM (SELECT p_organization_id AS "id") AS o
	LEFT JOIN "app"."auto_top_ups" AS a ON a."organization_id" = o."id"
	LEFT JOIN "app"."credit_balances" AS b ON b."organization_id" = o."id";
$$;
